#!/usr/bin/env python3
"""Fails when production code includes across a layer boundary that docs/ARCHITECTURE.md
does not allow, or when a pure module includes a CUDA, NCCL, MPI or ibverbs header.

The rules are read from docs/ARCHITECTURE.md (the one source of truth): the rows of the
table between `<!-- layers:modules -->` and `<!-- layers:end -->` name each module, its
folders and the modules it may include; the rows between `<!-- layers:exceptions -->` and
`<!-- layers:end -->` name single files allowed one more edge, with the reason. Modules
marked `pure` may include no system header of the transports (PURE_FORBIDDEN below).

An include `"a/b.hpp"` is resolved against the repository root, then src/ (the two include
roots every target has), then the including file's folder. A quoted include that resolves
to nothing but names a module folder is an error too (a stale path after a move).

Usage: check_layers.py [ROOT]     check the tree at ROOT (default: the repository)
Exit: 0 clean, 1 violations (one line each), 2 unreadable rules.
"""
import pathlib
import re
import sys

PRODUCTION = ("core", "comm", "workload", "src", "collectives", "topology", "net", "tuner")
SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".cuh")
DOC = "docs/ARCHITECTURE.md"
PURE_FORBIDDEN = re.compile(r"^(cuda|cuda_runtime|cuda_runtime_api|nccl|nccl_net|nvml|mpi|mpi\.h|infiniband/|rdma/)")
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


class RulesError(Exception):
    pass


def _rows(text, marker):
    """Cells of the table rows after `<!-- layers:MARKER -->`, up to `<!-- layers:end -->`."""
    start = text.find(f"<!-- layers:{marker} -->")
    if start < 0:
        raise RulesError(f"{DOC}: no '<!-- layers:{marker} -->' marker")
    end = text.find("<!-- layers:end -->", start)
    if end < 0:
        raise RulesError(f"{DOC}: no '<!-- layers:end -->' after '{marker}'")
    rows = []
    for line in text[start:end].splitlines():
        line = line.strip()
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        rows.append([c.strip().strip("`") for c in line.strip("|").split("|")])
    return rows[1:]  # the header row


def _names(cell):
    return [n.strip().strip("`") for n in cell.split(",") if n.strip() and n.strip() != "-"]


def load_rules(doc_text):
    """(modules: name -> {folders, allowed, pure}, exceptions: [(file, target, why)])."""
    modules = {}
    for cells in _rows(doc_text, "modules"):
        if len(cells) < 4:
            raise RulesError(f"{DOC}: module row {cells} needs 4 cells (module, folders, may include, pure)")
        name, folders, allowed, pure = cells[:4]
        modules[name] = {"folders": _names(folders), "allowed": set(_names(allowed)), "pure": pure == "yes"}
    for name, m in modules.items():
        for a in m["allowed"]:
            if a not in modules:
                raise RulesError(f"{DOC}: module '{name}' may include unknown module '{a}'")
    exceptions = []
    for cells in _rows(doc_text, "exceptions"):
        if len(cells) < 3 or not cells[2]:
            raise RulesError(f"{DOC}: exception row {cells} needs a file, a target module and a reason")
        if cells[1] not in modules:
            raise RulesError(f"{DOC}: exception for '{cells[0]}' names unknown module '{cells[1]}'")
        exceptions.append((cells[0], cells[1], cells[2]))
    if not modules:
        raise RulesError(f"{DOC}: the module table is empty")
    return modules, exceptions


def module_of(rel, modules):
    """The module whose folder is the longest prefix of the repository path REL."""
    best, best_len = None, -1
    for name, m in modules.items():
        for folder in m["folders"]:
            if (rel == folder or rel.startswith(folder.rstrip("/") + "/")) and len(folder) > best_len:
                best, best_len = name, len(folder)
    return best


def resolve(root, including, target):
    for base in (root, root / "src", including.parent):
        path = base / target
        if path.is_file():
            return path.resolve().relative_to(root.resolve()).as_posix()
    return None


def production_files(root):
    for folder in PRODUCTION:
        base = root / folder
        if base.is_dir():
            yield from (p for p in sorted(base.rglob("*")) if p.suffix in SUFFIXES and p.is_file())


def check(root, modules, exceptions):
    problems = []
    first_parts = {f.split("/")[0] for m in modules.values() for f in m["folders"]} | {"core", "comm", "runtime", "diagnose", "app"}
    for path in production_files(root):
        rel = path.relative_to(root).as_posix()
        source = module_of(rel, modules)
        if source is None:
            problems.append(f"{rel}: in no module of {DOC}; add its folder to the module table")
            continue
        text = path.read_text(errors="replace")
        for m in _INCLUDE.finditer(text):
            kind, target = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            if kind == "<":
                if modules[source]["pure"] and PURE_FORBIDDEN.match(target):
                    problems.append(f"{rel}:{line}: pure module '{source}' includes <{target}> (move the transport code out)")
                continue
            resolved = resolve(root, path, target)
            if resolved is None:
                if target.split("/")[0] in first_parts and "/" in target:
                    problems.append(f"{rel}:{line}: includes \"{target}\", which does not exist")
                continue
            dest = module_of(resolved, modules)
            if dest is None or dest == source or dest in modules[source]["allowed"]:
                continue
            if any(f == rel and t == dest for f, t, _ in exceptions):
                continue
            problems.append(f"{rel}:{line}: '{source}' may not include '{dest}' (\"{target}\"); "
                            f"allowed: {', '.join(sorted(modules[source]['allowed'])) or 'nothing'} ({DOC})")
    return problems


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    try:
        modules, exceptions = load_rules((root / DOC).read_text())
    except (OSError, RulesError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    problems = check(root, modules, exceptions)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layers; fix the include or, if it is "
              f"justified, add a row to {DOC}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
