#!/usr/bin/env python3
"""Fails when production code outgrows the project's shape rules (docs/TESTING.md):
no source file over 400 lines, no function over 80 lines.

Production code: .cpp/.hpp/.cu files under core/, comm/, workload/, src/, collectives/, topology/, tuner/ and net/.

Functions are found with a brace-matching heuristic, not a parser: comments, string and
character literals are blanked out, then an opening brace whose preceding text (back to the
last ';', '{' or '}') ends in ')' - optionally followed by const, noexcept, override, final,
mutable, a trailing return type or a constructor's initializer list - and which is not
inside another function opens a function. Its length is the count of lines from that brace
to its matching '}', both included. Lambdas and local classes count toward the function
that holds them. Control statements (if/for/while/switch/catch) only occur inside functions
and are never taken as one.

Usage: check_code_shape.py [ROOT]          check the tree at ROOT (default: the repository)
       check_code_shape.py --self-test     check the heuristic on built-in samples
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 80
FOLDERS = ("core", "comm", "workload", "src", "collectives", "topology", "tuner", "net")
SUFFIXES = (".cpp", ".hpp", ".cu")

_CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else)\b")
_TAIL = re.compile(r"\)\s*(const|noexcept(\([^)]*\))?|override|final|mutable|&|&&|\s)*(->[^;{}]*)?$")


def blank_literals(text):
    """Comments, string and char literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_initializer_list(header):
    """`Foo(int a) : a_(a), b_{1}` -> `Foo(int a)`: the ')' before a ctor's ' : ' list."""
    depth = 0
    for k, ch in enumerate(header):
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        elif ch == ":" and depth == 0 and header[k - 1:k] != ":" and header[k + 1:k + 2] != ":":
            before = header[:k].rstrip()
            if before.endswith(")"):
                return before
    return header


def functions(text):
    """(first line, line count, header) for each outermost function body in `text`."""
    code = blank_literals(text)
    found = []
    stack = []  # per open brace: True when it opens a function
    header_start = 0
    line = 1
    for k, ch in enumerate(code):
        if ch == "\n":
            line += 1
        elif ch == "{":
            header = " ".join(code[header_start:k].split())
            header = re.sub(r"^(public|private|protected)\s*:\s*", "", header)
            header = re.sub(r"^#.*", "", header)
            in_function = any(kind == "function" for kind, _, _ in stack)
            tail = strip_initializer_list(header)
            if tail != header and re.search(r"[\w>]$", header):
                kind = "member-init"  # w_{2} in a constructor's initializer list
            elif (not in_function and _TAIL.search(tail) and not _CONTROL.match(header)
                  and not re.search(r"=\s*$", header)):
                kind = "function"
            else:
                kind = "block"
            stack.append((kind, line, header))
            if kind != "member-init":
                header_start = k + 1
        elif ch == "}":
            kind = "block"
            if stack:
                kind, start, header = stack.pop()
                if kind == "function":
                    found.append((start, line - start + 1, header))
            if kind != "member-init":
                header_start = k + 1
        elif ch == ";":
            header_start = k + 1
    return found


def check_file(path, rel):
    text = path.read_text(encoding="utf-8", errors="replace")
    problems = []
    n = text.count("\n")
    if n > MAX_FILE_LINES:
        problems.append(f"{rel}: {n} lines (limit {MAX_FILE_LINES})")
    for start, length, header in functions(text):
        if length > MAX_FUNCTION_LINES:
            name = re.sub(r"\s*\(.*", "", header).split()[-1] if header else "?"
            problems.append(f"{rel}:{start}: function {name} is {length} lines (limit {MAX_FUNCTION_LINES})")
    return problems


def check_tree(root):
    problems = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                problems += check_file(path, path.relative_to(root).as_posix())
    return problems


def self_test():
    body = "\n".join(f"  x += {i};" for i in range(85))
    sample = (
        "namespace a {\n"
        "// a comment with { and ( that must not count\n"
        "struct S {\n  int f() const { return 1; }\n};\n"
        f"int long_one(int x) {{\n{body}\n  auto l = [&] {{ return \"}}\"; }};\n  return x;\n}}\n"
        "S::S(int v) : v_(v), w_{2} {\n  if (v) {\n  }\n}\n"
        "}  // namespace a\n"
    )
    got = {(h.split("(")[0].split()[-1], n) for _, n, h in functions(sample)}
    want = {("f", 1), ("long_one", 89), ("S::S", 4)}
    if got != want:
        print(f"self-test failed: found {sorted(got)}, expected {sorted(want)}")
        return 1
    print("self-test passed: functions and their lengths found as expected")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    problems = check_tree(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} code-shape problem(s): split the file or function (docs/TESTING.md)")
        return 1
    print(f"code shape ok: no production file over {MAX_FILE_LINES} lines, no function over {MAX_FUNCTION_LINES}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
