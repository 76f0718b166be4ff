"""A headless Chromium driven through its DevTools protocol: open a page,
wait for text to appear, read the page's text, take a screenshot."""
import asyncio, base64, json, os, shutil, signal, subprocess, tempfile, time, urllib.request

from websockets.asyncio.client import connect


class Browser:
    def __init__(self, executable=None):
        self.executable = executable or shutil.which("chromium") or shutil.which("chromium-browser")
        self.profile = tempfile.mkdtemp(prefix="observatory-chromium-")
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen(
            [self.executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "--window-size=1200,800", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        path = os.path.join(self.profile, "DevToolsActivePort")
        while time.monotonic() < deadline:
            if os.path.exists(path):
                lines = open(path).read().split()
                if len(lines) >= 2:
                    self.port = int(lines[0])
                    return self
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port within 30 s")

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)

    def new_page(self, url):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?{url}", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as response:
            return Page(json.load(response)["webSocketDebuggerUrl"])


class Page:
    def __init__(self, address):
        self.address = address
        self.next_id = 0

    async def __aenter__(self):
        self.socket = await connect(self.address, max_size=64 * 1024 * 1024)
        return self

    async def __aexit__(self, *exc):
        await self.socket.close()

    async def call(self, method, **params):
        self.next_id += 1
        identifier = self.next_id
        await self.socket.send(json.dumps({"id": identifier, "method": method, "params": params}))
        while True:
            message = json.loads(await asyncio.wait_for(self.socket.recv(), timeout=30))
            if message.get("id") == identifier:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def evaluate(self, expression):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def text(self):
        return await self.evaluate("document.body.innerText") or ""

    async def wait_for(self, predicate, timeout=20, what="the page to show it"):
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = await self.text()
            if predicate(text):
                return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}; the page shows:\n{text}")

    async def screenshot(self, path):
        result = await self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(result["data"]))
