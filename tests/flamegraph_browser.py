#!/usr/bin/env python3
"""The SVG flame graph in a browser: headless Chromium driven through
ChromeDriver's WebDriver HTTP API (the standard library only).

Usage: tests/flamegraph_browser.py SVG PNG

SVG is pego report --flamegraph's picture of tests/golden/report/data/p1.txt,
whose self times (ms) are main 0.5, main;value 0.8, main;value;object 1.0,
main;value;object;value 1.2, ...;value;string 0.9, ...;value;number 0.3,
main;value;string 0.3: 5 ms in all. The test clicks main;value;object (3.4 ms
with its subtree), which must widen to the whole plot with its subtree scaled
by 5 / 3.4, its ancestors full width and faded, main;value;string hidden and
Reset Zoom shown; then searches "str.ng" through the Search prompt: the two
string frames are highlighted and 24.0% (1.2 of 5 ms) matched; the pointer
over the number frame describes it on the details line; the screenshot of that
state is saved to PNG; with ic (ignore case) on, "STR" matches the same
frames, and none once it is off; then Reset Zoom restores the widths and
Escape ends the search. Exit status 0, or 1 with the failed checks.
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"   # the W3C web element identifier
PLOT = 1180.0


class Driver:
    def __init__(self, chromedriver, chromium, profile_dir):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([chromedriver, "--port=%d" % self.port],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        for _ in range(100):
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1300,400", "--user-data-dir=" + profile_dir]
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                 "goog:chromeOptions": {"binary": chromium, "args": args}}}}
        self.session = "/session/" + self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError("%s %s: %s" % (method, path, e.read().decode(errors="replace")))

    def do(self, method, path, body=None):
        return self.call(method, self.session + path, body)

    def run(self, script, *args):
        return self.do("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        found = self.do("POST", "/element", {"using": "css selector", "value": css})
        if ELEMENT not in found:
            raise RuntimeError("no element %s: %s" % (css, found))
        return found[ELEMENT]

    def click(self, css):
        self.do("POST", "/element/%s/click" % self.find(css), {})

    def quit(self):
        try:
            self.call("DELETE", self.session)
        finally:
            self.proc.terminate()
            self.proc.wait(10)


# The frames' state: {path: (x, width, classes, fill)}; a frame's path is its
# data-name and those of the frames below it, found by their ranges.
STATE = """
var out = {}, gs = document.querySelectorAll('g.frame');
gs.forEach(function (g) {
    var r = g.querySelector('rect'), s = +g.dataset.s, v = +g.dataset.v, y = +r.getAttribute('y'), path = [];
    gs.forEach(function (h) {
        var hs = +h.dataset.s, hv = +h.dataset.v, hy = +h.querySelector('rect').getAttribute('y');
        if (hy >= y && hs <= s && hs + hv >= s + v) path.push([hy, h.dataset.name]);
    });
    path.sort(function (a, b) { return b[0] - a[0]; });
    out[path.map(function (p) { return p[1]; }).join(';')] =
        [+r.getAttribute('width'), g.getAttribute('class'), r.getAttribute('fill'),
         getComputedStyle(g).display, +r.getAttribute('x')];
});
return out;
"""

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def near(a, b):
    return abs(a - b) < 0.02


def main():
    svg, png = sys.argv[1], sys.argv[2]
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    profile = tempfile.mkdtemp()
    d = Driver(chromedriver, chromium, profile)
    try:
        d.do("POST", "/url", {"url": "file://" + os.path.abspath(svg)})
        before = d.run(STATE)
        check(len(before) == 7, "7 frames drawn (%d)" % len(before))
        check(near(before["main"][0], PLOT), "main is the whole plot wide")
        check(near(before["main;value;object"][0], PLOT * 3.4 / 5), "object is 3.4 / 5 of it")

        d.click('g.frame[data-name="object"] rect')
        z = d.run(STATE)
        obj, child = z["main;value;object"], z["main;value;object;value"]
        check(near(obj[0], PLOT) and near(obj[4], 10), "after a click, object is the whole plot wide")
        check(near(child[0], PLOT * 2.4 / 3.4), "its subtree scaled: object;value %.2f" % child[0])
        check(all(near(z[p][0], PLOT) and "parent" in z[p][1] for p in ("main", "main;value")),
              "its ancestors are full width and faded")
        check(z["main;value;string"][3] == "none", "main;value;string (outside) is hidden")
        check(d.run("return getComputedStyle(document.getElementById('reset-zoom')).display") != "none",
              "Reset Zoom is shown")

        d.click("#search")
        check("regular expression" in d.do("GET", "/alert/text"), "Search asks for a regular expression")
        d.do("POST", "/alert/text", {"text": "str.ng"})
        d.do("POST", "/alert/accept", {})
        s = d.run(STATE)
        hits = sorted(p for p in s if "match" in (s[p][1] or ""))
        check(hits == ["main;value;object;value;string", "main;value;string"], "the string frames match: %s" % hits)
        check(all(s[p][2] == "rgb(230,0,230)" for p in hits), "and are highlighted")
        matched = d.run("return document.getElementById('matched').textContent")
        check(matched == "Matched: 24.0% (2 frames)", "matched share: %r" % matched)
        check(d.run("return document.getElementById('search').textContent") == "Reset Search",
              "the control now resets the search")

        d.do("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "actions": [
            {"type": "pointerMove", "duration": 0, "origin": {ELEMENT: d.find('g.frame[data-name="number"] rect')},
             "x": 0, "y": 0}]}]})
        shown = d.run("return document.getElementById('details').textContent")
        check(shown.startswith("number: 300 us (6.00%), 48 calls"), "the frame under the pointer is described: %r" % shown)

        with open(png, "wb") as f:
            f.write(base64.b64decode(d.do("GET", "/screenshot")))
        print("screenshot: " + os.path.abspath(png))

        d.click("#ignore-case")
        check("on" in d.run("return document.getElementById('ignore-case').getAttribute('class')"),
              "ic turns on ignoring case")
        d.click("#search")   # Reset Search
        d.click("#search")
        d.do("POST", "/alert/text", {"text": "STR"})
        d.do("POST", "/alert/accept", {})
        matched = d.run("return document.getElementById('matched').textContent")
        check(matched == "Matched: 24.0% (2 frames)", "STR matches the string frames ignoring case: %r" % matched)
        d.click("#ignore-case")
        matched = d.run("return document.getElementById('matched').textContent")
        check(matched == "Matched: 0.0% (0 frames)", "and none when case counts again: %r" % matched)

        d.click("#reset-zoom")
        after = d.run(STATE)
        check(all(near(after[p][0], before[p][0]) and near(after[p][4], before[p][4]) and after[p][3] != "none"
                  for p in before), "Reset Zoom restores every frame")
        d.do("POST", "/actions", {"actions": [{"type": "key", "id": "k", "actions": [
            {"type": "keyDown", "value": "\ue00c"}, {"type": "keyUp", "value": "\ue00c"}]}]})
        after = d.run(STATE)
        check(all(after[p][2] == before[p][2] for p in before) and not d.run("return document.querySelector('.match')"),
              "Escape ends the search: the colours are restored")
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("flamegraph browser: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
