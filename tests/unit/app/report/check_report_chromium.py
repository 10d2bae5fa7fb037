#!/usr/bin/env python3
"""Opens the HTML report of a known input in a real headless Chromium and checks that it
renders: the expected plot elements are in the parsed DOM, the page logs no console
message, makes no network request, and its screenshot is not blank.

Usage: check_report_chromium.py CCTUNE FIXTURES_DIR WORK_DIR
Exit 77 (CTest: skipped) with the reason when Chromium is not installed.

A control page proves the detectors work: it requests http://127.0.0.1:9 (a closed local
port), which must show up as a page request in Chromium's NetLog, and holds an iframe whose
CSP blocks an image, which must log a console message. DNS is mapped to nothing, so Chromium's own
background requests cannot leave the machine either.
"""
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

# What the report of nccl_tuned.json contains (tests/unit/app/report/report_html_test.cpp pins
# the same counts on the HTML text; here they must survive the browser's parser).
EXPECTED = {"plots": 9, "lines": 19, "points": 102, "cells": 6}

# One control page for both detectors: its own image request must reach the NetLog, and
# the image in the iframe, whose CSP forbids it, must log a console message.
CONTROL = """<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
<img src="http://127.0.0.1:9/fetched.png">
<iframe srcdoc="<meta http-equiv='Content-Security-Policy' content=&quot;default-src 'none'&quot;><img src='http://127.0.0.1:9/blocked.png'>">
</iframe></body></html>"""


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


def chromium(browser, work, page, *extra):
    """Runs headless Chromium on a file; returns (stdout, stderr, netlog path)."""
    profile = tempfile.mkdtemp(dir=work, prefix="profile-")
    netlog = os.path.join(work, "netlog-%s.json" % os.path.basename(page))
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-features=NetworkTimeServiceQuerying", "--host-resolver-rules=MAP * ~NOTFOUND",
           "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--log-net-log=" + netlog,
           *extra, "file://" + os.path.abspath(page)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    if p.returncode != 0:
        raise SystemExit("chromium exited with %d on %s: %s" % (p.returncode, page, p.stderr[-2000:]))
    return p.stdout, p.stderr, netlog


def console_messages(stderr):
    return [l for l in stderr.splitlines() if ":CONSOLE" in l]


def page_requests(netlog):
    """URLs the page itself asked for (browser-internal requests have no origin)."""
    with open(netlog) as f:
        text = f.read().rstrip()
    try:
        log = json.loads(text)
    except ValueError:  # a log cut short: close the event list
        log = json.loads(text.rstrip(",") + "]}")
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for e in log.get("events", []):
        p = e.get("params", {})
        if types.get(e["type"]) != "URL_REQUEST_START_JOB" or "url" not in p:
            continue
        if p.get("initiator") != "not an origin" or "file://" in p.get("network_isolation_key", ""):
            urls.append(p["url"])
    return urls


class Counter(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.counts = dict.fromkeys(EXPECTED, 0)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.counts["plots"] += "data-plot" in a
        self.counts["lines"] += tag == "path" and a.get("class") == "series-line" and "data-series" in a
        self.counts["points"] += tag == "circle" and "data-point" in a
        self.counts["cells"] += tag == "rect" and "data-cell" in a

    handle_startendtag = handle_starttag


def png_pixels(path):
    """Rows of RGB(A) bytes of an 8-bit RGB/RGBA PNG (what Chromium writes), decoded by hand."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body[:13])
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG format"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 2:  # Up: the common case, done without a Python loop per byte
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f in (1, 3, 4):
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                if f == 1:
                    line[i] = (line[i] + a) & 255
                elif f == 3:
                    line[i] = (line[i] + (a + b) // 2) & 255
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield [bytes(line[x:x + 3]) for x in range(0, stride, bpp)]


def screenshot_stats(path):
    """(distinct colours, non-white pixels, pixels in the first plot line's colour #4e79a7)."""
    colours, non_white, line_colour = set(), 0, 0
    for row in png_pixels(path):
        colours.update(row)
        non_white += sum(px != b"\xff\xff\xff" for px in row)
        line_colour += row.count(b"\x4e\x79\xa7")
    return len(colours), non_white, line_colour


def main():
    cctune, fixtures, work = sys.argv[1:4]
    browser = find_chromium()
    if not browser:
        print("SKIP: no Chromium found (chromium, chromium-browser, /usr/bin/chromium); "
              "install Debian's chromium package to run this test")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    start = time.time()
    report = os.path.join(work, "report.html")
    subprocess.run([cctune, "report", os.path.join(fixtures, "nccl_tuned.json"), "-o", report], check=True, timeout=60)
    failures = []

    # The detectors themselves.
    control = os.path.join(work, "control.html")
    with open(control, "w") as f:
        f.write(CONTROL)
    _, err, netlog = chromium(browser, work, control, "--dump-dom")
    if not any("blocked.png" in m for m in console_messages(err)):
        failures.append("detector broken: the CSP-blocked image of control.html logged no console message")
    if not any("fetched.png" in u for u in page_requests(netlog)):
        failures.append("detector broken: control.html's request is not in the NetLog")

    # The report: DOM and screenshot from one browser run.
    shot = os.path.join(work, "report.png")
    dom, err, netlog = chromium(browser, work, report, "--dump-dom", "--screenshot=" + shot, "--window-size=1280,1100",
                                "--hide-scrollbars")
    counter = Counter()
    counter.feed(dom)
    print("elements in the DOM:", counter.counts, "expected:", EXPECTED)
    if counter.counts != EXPECTED:
        failures.append("DOM element counts %s, expected %s" % (counter.counts, EXPECTED))
    messages = console_messages(err)
    print("console messages:", len(messages))
    failures += ["console: " + m for m in messages]
    requests = page_requests(netlog)
    print("page network requests:", requests)
    failures += ["network request: " + u for u in requests]
    if not os.path.exists(shot):
        failures.append("no screenshot written")
    else:
        colours, non_white, line_colour = screenshot_stats(shot)
        print("screenshot %s: %d distinct colours, %d non-white pixels, %d pixels of the first plot line's colour"
              % (shot, colours, non_white, line_colour))
        if colours < 8 or non_white < 5000:
            failures.append("screenshot looks blank: %d colours, %d non-white pixels" % (colours, non_white))
        if line_colour < 50:
            failures.append("the first busbw plot's line (#4e79a7) is not in the screenshot (%d pixels)" % line_colour)

    print("took %.1f s" % (time.time() - start))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
