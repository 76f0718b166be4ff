#!/usr/bin/env python3
"""The browser test of the web face: the live page in headless Chromium.

Starts the built observatoryd on a free port, opens http://127.0.0.1:PORT/?prefix=sky.
in headless Chromium (browser.py), changes keys with the observatory CLI, waits
until the page shows each value and its author, kills the daemon (the page must
say reconnecting or stale, never "undefined"), restarts it on the same port (live
again), takes a screenshot to docs/live-view.png, deletes a key (its card must say
who deleted it, then fade out and go), and stops every process it started by its pid.

Usage: live_view_test.py [BUILD_DIR]   (default .build/debug)
Exit status: 0 passed, 1 failed, 77 skipped (no Chromium or no websockets module).
"""
import asyncio, os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIPPED = 77

try:
    import websockets  # noqa: F401  (browser.py speaks DevTools over it)
except ImportError:
    print("SKIPPED: the Python module websockets is missing (pip install websockets)")
    sys.exit(SKIPPED)
if not (shutil.which("chromium") or shutil.which("chromium-browser")):
    print("SKIPPED: Chromium is not installed (apt-get install -y chromium)")
    sys.exit(SKIPPED)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402


class Daemon:
    """observatoryd on 127.0.0.1, in memory, stopped by its pid."""

    def __init__(self, build, port=0):
        self.log = tempfile.NamedTemporaryFile(prefix="observatoryd-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [os.path.join(build, "observatoryd"), "--port", str(port), "--fsync", "none"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=tempfile.mkdtemp(prefix="observatoryd-"))
        self.port = self.wait_for_port()

    def wait_for_port(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(self.log.name) as handle:
                match = re.search(r"listening on 127\.0\.0\.1:(\d+)", handle.read())
            if match:
                return int(match.group(1))
            if self.process.poll() is not None:
                raise RuntimeError("observatoryd exited: " + open(self.log.name).read())
            time.sleep(0.05)  # polling the log for the port line, bounded by the deadline
        raise RuntimeError("observatoryd did not say where it listens")

    def kill(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def cli(build, port, *arguments):
    subprocess.run(
        [os.path.join(build, "observatory"), *arguments, "--port", str(port)],
        check=True, timeout=30, stdout=subprocess.DEVNULL)


async def run(build):
    daemon = Daemon(build)
    restarted = None
    try:
        with Browser() as browser:
            port = daemon.port
            async with browser.new_page(f"http://127.0.0.1:{port}/?prefix=sky.") as page:
                await page.wait_for(lambda text: "live" in text, what="the view to be live")
                cli(build, port, "set", "sky.color", '"red"', "--name", "alice")
                await page.wait_for(lambda text: "sky.color" in text and "red" in text and "alice" in text,
                                    what="sky.color = red by alice")
                cli(build, port, "set", "sky.color", '"blue"', "--name", "bob")
                await page.wait_for(lambda text: "blue" in text and "bob" in text, what="sky.color = blue by bob")
                cli(build, port, "set", "sky.clouds", "3", "--name", "carol")
                await page.wait_for(lambda text: "sky.clouds" in text and "carol" in text, what="sky.clouds by carol")
                # A click on a card shows the key's recent history, newest first.
                await page.evaluate("document.querySelector('[data-key=\"sky.color\"]').click()")

                def history_shown(text):
                    shown = text.split("the last", 1)[-1] if "changes the server holds" in text else ""
                    return all(word in shown for word in ('"blue"', '"red"', "alice", "bob", "v1", "v2"))
                await page.wait_for(history_shown, what="the history of sky.color: red by alice, blue by bob")
                await page.evaluate("document.getElementById('history').close()")

                daemon.kill()
                await page.wait_for(lambda text: "reconnecting" in text or "stale" in text,
                                    what="the view to say reconnecting or stale")
                if "undefined" in await page.text():
                    raise AssertionError("the page says undefined while not live: " + await page.text())
                restarted = Daemon(build, port)
                await page.wait_for(lambda text: "live" in text and "reconnecting" not in text,
                                    timeout=40, what="the view to be live again")
                cli(build, port, "set", "sky.color", '"green"', "--name", "alice")
                await page.wait_for(lambda text: "green" in text and "alice" in text, what="green by alice")
                cli(build, port, "set", "sky.clouds", "5", "--name", "carol")
                await page.wait_for(lambda text: "5" in text, what="sky.clouds = 5")
                if "undefined" in await page.text():
                    raise AssertionError("the page says undefined once live again: " + await page.text())
                os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
                await page.screenshot(os.path.join(ROOT, "docs", "live-view.png"))
                cli(build, port, "delete", "sky.clouds", "--name", "dave")
                await page.wait_for(lambda text: "deleted by dave" in text, what="sky.clouds deleted by dave")
                await page.wait_for(lambda text: "sky.clouds" not in text, what="the deleted card to fade out and go")
    finally:
        daemon.kill()
        if restarted:
            restarted.kill()
    print("passed: the live page followed the changes, said it was reconnecting, came back live, "
          "showed a key's history on a click, and said who deleted a key before its card went")


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug"))
    asyncio.run(run(build))
    return 0


if __name__ == "__main__":
    sys.exit(main())
