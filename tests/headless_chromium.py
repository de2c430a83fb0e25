"""One headless Chromium for the pages the tests draw, driven over its DevTools pipe (no chromedriver, no selenium).

Why: the page tests (test_detailed_html.py, test_report_html.py, test_compare_cli.py) once started a browser for
every check (`chromium --headless --screenshot` or `--dump-dom`: 20 browsers, about 16 s of the suite's CPU); now
each pytest worker starts one (conftest's `chromium` fixture) and loads the pages into it. The browser is the same
binary in the same headless mode, and what a test reads is what it read: the pixels of a screenshot of a window of
the size and scale asked, every console message and uncaught script error of the page and its frames, or the page's
title once it has loaded.

The pipe (--remote-debugging-pipe): JSON messages ended by a NUL byte, commands on fd 3, replies and events on fd 4.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--allow-file-access-from-files", "--remote-debugging-pipe"]
TIMEOUT_S = 120


def binary():
    """The chromium binary's path, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Chromium:
    """A headless Chromium and one page (tab) in it; start() it, load() pages, close() it."""

    def __init__(self, path):
        self.profile = tempfile.mkdtemp(prefix="runscore-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser reads fd 3 and writes fd 4: the child's ends moved above 9 first (so that putting one on 3
        # cannot close the other), then onto 3 and 4, which the child keeps open (pass_fds).
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)

        def fds():
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)
        self.proc = subprocess.Popen([path] + FLAGS + ["--user-data-dir=%s" % self.profile, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        for fd in high:
            os.close(fd)
        self._buffer, self._events, self._next_id = b"", [], 0
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(domain + ".enable", session=True)
        # Frames drawn in other processes (none for file: pages today) would report their console here too.
        self.send("Target.setAutoAttach", session=True, autoAttach=True, waitForDebuggerOnStart=False, flatten=True)

    # ------------------------------------------------------------------------------------------ the pipe ---

    def send(self, method, session=False, **params):
        """A command's result (its reply's `result`); the events that arrive meanwhile are kept."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode("utf-8") + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self._events.append(reply)

    def _receive(self, deadline=None):
        deadline = deadline or time.monotonic() + TIMEOUT_S
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("headless Chromium did not answer within %d s" % TIMEOUT_S)
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("headless Chromium ended (exit %s)" % self.proc.poll())
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message.decode("utf-8"))

    def _wait_for(self, method):
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for index, event in enumerate(self._events):
                if event.get("method") == method:
                    return self._events.pop(index)
            self._events.append(self._receive(deadline))

    # ------------------------------------------------------------------------------------------ a page ---

    def load(self, uri, width, height, scale=1.0):
        """Show `uri` in a window `width` x `height` CSS px at `scale` device pixels a px, until its load event
        (its frames loaded, their onload run); the page's console lines (messages and uncaught errors)."""
        self.send("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=scale, mobile=False)
        self.send("Page.navigate", session=True, url="about:blank")
        self._wait_for("Page.loadEventFired")
        del self._events[:]
        self.send("Page.navigate", session=True, url=uri)
        self._wait_for("Page.loadEventFired")
        self.send("Runtime.evaluate", session=True, expression="0")     # the console events before load arrive first
        console = [_console_line(event) for event in self._events]
        del self._events[:]
        return [line for line in console if line is not None]

    def screenshot(self):
        """The window as PNG bytes."""
        return base64.b64decode(self.send("Page.captureScreenshot", session=True, format="png")["data"])

    def evaluate(self, expression):
        """A JavaScript expression's value in the page."""
        return self.send("Runtime.evaluate", session=True, expression=expression,
                         returnByValue=True)["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)


def _console_line(event):
    """A console event as a line (`CONSOLE level: "text" (where)`), or None for what is no console message."""
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled":
        text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
        frames = (params.get("stackTrace") or {}).get("callFrames") or [{}]
        return 'CONSOLE %s: "%s" (%s)' % (params.get("type"), text, frames[0].get("url", ""))
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        text = (details.get("exception") or {}).get("description") or details.get("text", "")
        return 'CONSOLE uncaught: "%s" (%s)' % (text.splitlines()[0] if text else "", details.get("url", ""))
    if method == "Log.entryAdded":
        entry = params.get("entry", {})
        if entry.get("level") == "verbose":
            return None
        return 'CONSOLE %s: "%s" (%s)' % (entry.get("level"), entry.get("text"), entry.get("url", ""))
    return None
