"""What the MPI plumbing tests (tests/mpi/*/) share: the check that prints ok/FAILED and stops at
the first failure, and the one-rule profile the A/B tests deploy.

Import from a test beside it:  sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
"""
import json
import sys


def check(cond, what, extra=None):
    """Print "ok: WHAT", or "FAILED: WHAT" with EXTRA (a command's output) and exit 1."""
    if not cond:
        print(f"FAILED: {what}")
        if extra is not None:
            print(extra)
        sys.exit(1)
    print(f"ok: {what}")


def write_profile(path, env, min_bytes, max_bytes):
    """A profile with ENV and one 2-rank allreduce rule (ring/simple, 8 channels) over MIN..MAX bytes."""
    doc = {"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3"}, "env": env,
           "rules": [{"collective": "allreduce", "nranks": 2, "nnodes": 1, "min_bytes": min_bytes,
                      "max_bytes": max_bytes, "algo": "ring", "proto": "simple", "channels": 8}]}
    with open(path, "w") as f:
        json.dump(doc, f)


def check_ab_document(path):
    """Check that PATH (verify.json, confirmation.json, replay.json) is valid against configs/schema/ab.schema.json."""
    import jsonschema  # only the A/B tests need it
    import os
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(source, "configs", "schema", "ab.schema.json")) as f:
        schema = json.load(f)
    with open(path) as f:
        doc = json.load(f)
    errors = [f"{list(e.path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
    check(not errors, f"{os.path.basename(path)} is valid against ab.schema.json", "\n".join(errors[:10]))
