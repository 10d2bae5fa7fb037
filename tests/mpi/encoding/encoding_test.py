#!/usr/bin/env python3
"""Issue 24 F1, F2, F10, F11, F15 and the text items of F16, against the built cctune.

Each scenario is the review's reproduction (docs: ../../../docs/SECURITY.md, "Encodings and
escaping"); every one failed before the fix:

  worker_bytes   F1: a worker's log line cut inside a UTF-8 character, and a preloaded
                 "plugin" writing bytes that are not UTF-8 to the worker log or the message
                 pipe. Expected: the group fails with a sanitised reason, the next group runs,
                 results.json ends "complete".
  argv_env       F2: bytes that are not UTF-8 in -o, NCCL_* and --space/--resume paths (missing: one line, exit 3 / 2), and
                 compare --json / --resume messages cut at 39-40 bytes.
  terminal       F10: escape sequences and newlines from files never reach the terminal
                 (errors, tune, topo --from, sweep --space --dry-run, compare).
  csv            F11: a ';'-separated formula in a label is quoted and defused.
  json_shape     F15: nlohmann type errors become one-line usage errors (exit 2).
  tune_paths     F16: `# use:` quotes paths; nccl.env refuses a path it cannot express
                 in one line naming the fix; HTML legends are valid UTF-8 without raw C0.

  encoding_test.py SCENARIO --cctune PATH --workdir DIR [--preload PATH] [--fixtures DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

# The GPU-free stand-in NCCL module (CCTUNE_NCCL_MODULE), set beside the binary in main().
SELFTEST = {"CCTUNE_SELFTEST_GPUS": "2"}
NCCL_SMALL = ["sweep", "--backend", "nccl", "-b", "8", "-e", "1K", "-n", "5", "-w", "1", "--min-iters", "5",
              "--max-time", "0.03", "--collectives", "allreduce", "--transport", "nvlink,pcie"]
ESC = "\x1b]0;PWNED\x07\x1b[2J"
failures = []


def run(args, env=None, timeout=120):
    full = dict(os.environ)
    full.update(env or {})
    # Test-only variables (CCTUNE_TEST_FAULT) are read by the test build of cctune only.
    if any(k.startswith("CCTUNE_TEST_") for k in (env or {})) and isinstance(args[0], str):
        args = [os.path.join(os.path.dirname(os.path.abspath(args[0])), "cctune-test")] + list(args[1:])
    p = subprocess.run([os.fsencode(a) if isinstance(a, bytes) else a for a in args], env={
        os.fsencode(k): (v if isinstance(v, bytes) else os.fsencode(v)) for k, v in full.items()},
        capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check(cond, what, detail=b""):
    if cond:
        print(f"ok: {what}")
    else:
        failures.append(what)
        print(f"FAILED: {what}\n{detail.decode('utf-8', 'replace')[-1500:] if isinstance(detail, bytes) else detail}")


def is_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def no_raw_controls(b):
    """No C0 control other than the newline that ends a line, no DEL, no C1 (U+0080-U+009F)."""
    text = b.decode("utf-8", "replace")
    return not any((ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f for c in text)


def one_error(rc, err, codes=(2,)):
    lines = [l for l in err.splitlines() if l.strip()]
    return rc in codes and sum(l.startswith(b"cctune: error:") for l in lines) == 1 and b"json.exception" not in err \
        and no_raw_controls(err) and is_utf8(err)


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    return json.loads(raw.decode("utf-8")), raw  # strict: invalid UTF-8 fails here


def scenario_worker_bytes(a):
    cases = [("cut_utf8", {"NCCL_AAA": "x" + "\u00e9" * 150, "CCTUNE_TEST_FAULT": "exit:0:2"}, True)]
    if a.preload:
        cases += [("plugin_log", {"LD_PRELOAD": a.preload, "BAD_BYTES_MODE": "log"}, False),
                  ("plugin_fd3", {"LD_PRELOAD": a.preload, "BAD_BYTES_MODE": "fd3"}, False)]
    for name, env, _ in cases:
        out = os.path.join(a.workdir, name)
        rc, _, err = run([a.cctune] + NCCL_SMALL + ["-o", out], dict(SELFTEST, **env))
        check(b"json.exception" not in err and rc == 1, f"{name}: the sweep ends normally with failed groups (rc {rc})", err)
        check(no_raw_controls(err), f"{name}: stderr shows no raw control characters", err)
        try:
            doc, _ = load(os.path.join(out, "results.json"))
        except (OSError, ValueError) as e:
            check(False, f"{name}: results.json is valid UTF-8 JSON ({e})")
            continue
        runs = {r["group"]: r for r in doc["runs"]}
        check(doc["meta"]["status"] == "complete", f"{name}: results.json is complete, not left running", str(doc["meta"]["status"]))
        check(set(runs) == {"nvlink", "pcie"}, f"{name}: the next group ran after the first failed", str(list(runs)))
        for g, r in runs.items():
            reason = r.get("reason", "")
            check(r["status"] == "failed" and reason, f"{name}: group {g} failed with a reason: {reason[:160]!r}")
        if name == "plugin_fd3":
            check(any("\ufffd" in r.get("reason", "") for r in runs.values()), f"{name}: the bytes show as U+FFFD in the reason")


def scenario_argv_env(a):
    w = a.workdir.encode()
    # -o with a byte that is not UTF-8: the sweep runs; meta.argv records U+FFFD.
    out = w + b"/o\xff"
    rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "-e", "64", "--max-time", "0.01", "-o", out])
    check(rc == 0 and b"json.exception" not in err, f"-o with 0xFF: the sweep runs (rc {rc})", err)
    if rc == 0:
        doc, _ = load(out + b"/results.json")
        check(any("\ufffd" in x for x in doc["meta"]["argv"]), "-o with 0xFF: meta.argv holds U+FFFD")
    # NCCL_FOO=0xFE: recorded with U+FFFD in meta.env, the sweep runs.
    out = w + b"/u2"
    rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "-e", "64", "--max-time", "0.01", "-o", out], {"NCCL_FOO": b"\xfe"})
    check(rc == 0, f"NCCL_FOO=0xFE: the sweep runs (rc {rc})", err)
    if rc == 0:
        doc, _ = load(out + b"/results.json")
        check(doc["meta"]["env"].get("NCCL_FOO") == "\ufffd", "NCCL_FOO=0xFE: meta.env records U+FFFD", str(doc["meta"]["env"]))
    # --space / --resume naming a missing path that is not UTF-8: one line, exit 2.
    # (a file that cannot be read is exit 3, as every unreadable input file: read_file's EnvironmentError)
    rc, _, err = run([a.cctune, "sweep", "--space", w + b"/\xff.json", "--dry-run"])
    check(one_error(rc, err, (3,)), f"--space with 0xFF in the path: one line, exit 3 (rc {rc})", err)
    rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "--resume", w + b"/\xff"])
    check(one_error(rc, err), f"--resume with 0xFF in the path: one line, exit 2 (rc {rc})", err)
    # compare --json with a setting cut at 39 bytes inside an 'é'.
    base = os.path.join(a.workdir, "r0")
    rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "-e", "64", "--max-time", "0.01", "-o", base])
    doc, _ = load(os.path.join(base, "results.json"))
    doc["meta"]["settings"]["zz"] = "x" + "\u00e9" * 40
    os.makedirs(os.path.join(a.workdir, "c1"), exist_ok=True)
    with open(os.path.join(a.workdir, "c1", "results.json"), "w") as f:
        json.dump(doc, f)
    rc, out_b, err = run([a.cctune, "compare", "--json", os.path.join(base, "results.json"), os.path.join(a.workdir, "c1", "results.json")])
    check(rc == 0 and is_utf8(out_b), f"compare --json with a setting cut inside a character (rc {rc})", err)
    # --resume of a file whose carried config is a long non-ASCII string (mut_resume.py's find).
    doc, _ = load(os.path.join(base, "results.json"))
    doc["runs"][0]["points"][0]["config"]["channels"] = "\u00e9" * 30  # its 40-byte quote cut an é
    rdir = os.path.join(a.workdir, "resume_cut")
    os.makedirs(rdir, exist_ok=True)
    with open(os.path.join(rdir, "results.json"), "w") as f:
        json.dump(doc, f)
    rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "-e", "64", "--max-time", "0.01", "--resume", rdir])
    check(one_error(rc, err), f"--resume with a cut-prone config string: one line, exit 2 (rc {rc})", err)


def fixture_with(a, fixture, name, edit):
    with open(os.path.join(a.fixtures, fixture)) as f:
        doc = json.load(f)
    edit(doc)
    d = os.path.join(a.workdir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "results.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def scenario_terminal(a):
    def bad_status(doc):
        doc["runs"][0]["points"][0]["status"] = ESC + "\nsecond line"
    path = fixture_with(a, "mpi_np4.json", "esc_status", bad_status)
    for cmd in (["compare", path], ["report", path, "-o", os.path.join(a.workdir, "esc.html")], ["tune", path]):
        rc, out, err = run([a.cctune] + cmd)
        check(one_error(rc, err) and no_raw_controls(out), f"{cmd[0]}: an escape in a file's status is shown escaped, one line (rc {rc})", err)
    # tune's summary prints group labels from the file.
    def bad_group(doc):
        doc["runs"][1]["group"] = "nv" + ESC + "\nrm -rf ~ #"
    path = fixture_with(a, "nccl_tuned.json", "esc_group", bad_group)
    rc, out, err = run([a.cctune, "tune", path, "-o", os.path.join(a.workdir, "esc_group_out")])
    check(rc in (0, 2) and no_raw_controls(out) and no_raw_controls(err) and not any(l.startswith(b"rm -rf") for l in out.splitlines()),
          f"tune: a group label's escape and newline are shown escaped (rc {rc})", out + err)
    # compare: a skipped point's reason with a newline cannot forge a line.
    def skipped(doc):
        p = doc["runs"][0]["points"][0]
        p["status"], p["reason"] = "skipped", ESC + "\nFAKE LINE"
    path = fixture_with(a, "mpi_np4.json", "esc_reason", skipped)
    rc, out, err = run([a.cctune, "compare", path, path])
    check(rc == 0 and no_raw_controls(out) and not any(l.startswith(b"FAKE LINE") for l in out.splitlines()),
          f"compare: a reason's newline and escapes are shown escaped (rc {rc})", out + err)
    # compare: a C1 CSI (U+009B) in a label.
    def c1(doc):
        doc["runs"][0]["group"] = "c1\u009b31mred"
    path = fixture_with(a, "mpi_np4.json", "c1_label", c1)
    rc, out, err = run([a.cctune, "compare", path])
    check(rc == 0 and no_raw_controls(out), f"compare: a C1 control in a label is shown escaped (rc {rc})", out + err)
    # topo --from: every string of the file.
    rc, topo, err = run([a.cctune, "topo", "--json"])
    if rc == 0:
        t = json.loads(topo)
        t["nodes"][0]["hostname"] = "node" + ESC + "\nFAKE: all good"
        if t.get("groups"):
            t["groups"][0]["fingerprint"] = "845e" + ESC
        p = os.path.join(a.workdir, "topo_esc.json")
        with open(p, "w") as f:
            json.dump(t, f)
        rc, out, err = run([a.cctune, "topo", "--from", p])
        check(rc == 0 and no_raw_controls(out) and not any(l.startswith(b"FAKE") for l in out.splitlines()),
              f"topo --from: strings from the file are shown escaped (rc {rc})", out + err)
    else:
        print(f"note: cctune topo --json failed here (rc {rc}); topo --from not checked")
    # sweep --space --dry-run: the space's name.
    with open(os.path.join(a.source, "configs", "spaces", "quick.json")) as f:
        space = json.load(f)
    space["name"] = "quick" + ESC + "\nFAKE: all good"
    p = os.path.join(a.workdir, "esc_space.json")
    with open(p, "w") as f:
        json.dump(space, f)
    rc, out, err = run([a.cctune, "sweep", "--space", p, "--dry-run"], SELFTEST)
    check(rc == 0 and no_raw_controls(out) and not any(l.startswith(b"FAKE") for l in out.splitlines()),
          f"sweep --space --dry-run: the space name is shown escaped (rc {rc})", out + err)


def scenario_csv(a):
    def two_runs(doc):
        second = json.loads(json.dumps(doc["runs"][0]))
        second["group"] = "x;=cmd|' /C calc'!A0"
        doc["runs"].append(second)
    path = fixture_with(a, "mpi_np4.json", "csv_formula", two_runs)
    rc, out, err = run([a.cctune, "compare", "--csv", path])
    text = out.decode()
    check(rc == 0 and "\"x;'=cmd|' /C calc'!A0\"" in text and ";=" not in text,
          f"compare --csv: a ';'-separated formula is quoted and defused (rc {rc})", out + err)


def scenario_json_shape(a):
    def set_topology(value):
        def edit(doc):
            doc["topology"]["groups"][0] = value
        return edit
    for name, edit, field in (("fingerprint_number", lambda d: d["topology"]["groups"][0].update(fingerprint=0), "fingerprint"),
                              ("group_string", set_topology("\u202e"), "groups[0]")):
        path = fixture_with(a, "nccl_tuned.json", name, edit)
        rc, _, err = run([a.cctune, "tune", path, "-o", os.path.join(a.workdir, name + "_out")])
        check(one_error(rc, err) and field.encode() in err, f"tune with {name}: one line naming {field}, exit 2 (rc {rc})", err)
    base = os.path.join(a.workdir, "resumable")
    rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "-e", "64", "--max-time", "0.01", "-o", base])
    for value in ("x", {}, 5):
        with open(os.path.join(base, "results.json")) as f:
            doc = json.load(f)
        doc["meta"]["settings"]["resumed"] = value
        d = os.path.join(a.workdir, f"resumed_{type(value).__name__}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "results.json"), "w") as f:
            json.dump(doc, f)
        rc, _, err = run([a.cctune, "sweep", "--backend", "mpi", "-e", "64", "--max-time", "0.01", "--resume", d])
        check(one_error(rc, err) and b"meta.settings.resumed" in err, f"--resume with meta.settings.resumed = {value!r}: one line, exit 2 (rc {rc})", err)


def scenario_tune_paths(a):
    path = os.path.join(a.fixtures, "nccl_tuned.json")
    spaced = os.path.join(a.workdir, "a b")
    rc, out, err = run([a.cctune, "tune", path, "-o", spaced])
    check(one_error(rc, err) and b"tune -o" in err and not os.path.exists(os.path.join(spaced, "nccl.env")),
          f"tune -o 'DIR with a space': one line naming the fix, nothing written (rc {rc})", err)
    plain = os.path.join(a.workdir, "plain")
    rc, out, err = run([a.cctune, "tune", path, "-o", plain, "--plugin", "/opt/x/libnccl-tuner-cctune.so"])
    use = [l for l in out.decode().splitlines() if l.startswith("# use:")]
    check(rc == 0 and len(use) == 1, f"tune: one # use: line (rc {rc})", out + err)
    if use:
        # The line's command, run by a real shell, sources the file it names.
        cmd = use[0].split("(or: ", 1)[1].rstrip(")").replace("set +a", "set +a; echo \"$CCTUNE_PROFILE\"")
        p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
        check(p.returncode == 0 and p.stdout.strip() == os.path.join(plain, "profile.json"),
              f"tune: the # use: line works in bash: {cmd!r}", p.stdout + p.stderr)
    # A report legend longer than 25 bytes is cut on a character boundary; no raw C0 in HTML.
    def long_label(doc):
        doc["runs"][0]["group"] = "\u00e9" * 30 + "\x1b[31m"
    res = fixture_with(a, "mpi_np4.json", "legend", long_label)
    html = os.path.join(a.workdir, "legend.html")
    rc, _, err = run([a.cctune, "report", res, "-o", html])
    raw = open(html, "rb").read() if rc == 0 else b""
    check(rc == 0 and is_utf8(raw) and b"\x1b" not in raw, f"report: legends are valid UTF-8 and hold no raw ESC (rc {rc})", err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--cctune", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--preload")
    ap.add_argument("--fixtures")
    ap.add_argument("--source")
    a = ap.parse_args()
    SELFTEST["CCTUNE_NCCL_MODULE"] = os.path.join(os.path.dirname(os.path.abspath(a.cctune)), "tests", "libcctune-selftest.so")
    a.workdir = os.path.join(a.workdir, a.scenario)
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    globals()["scenario_" + a.scenario](a)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all ok")


if __name__ == "__main__":
    main()
