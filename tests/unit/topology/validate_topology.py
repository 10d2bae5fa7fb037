#!/usr/bin/env python3
"""validate_topology.py SCHEMA FILE: exit 0 when FILE is valid cctune.topology/1 JSON."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
data = json.load(open(sys.argv[2]))
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.path))
for e in errors[:10]:
    print(f"{sys.argv[2]}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
sys.exit(1 if errors else 0)
