"""A screenshot of `inspect view`'s Scoring tab for one scored case, to check by eye that the
per-item explanation fits a normal window (no column wrapped letter by letter).

Runs one case of a benchmark against the provider double (no key, no network), serves its log
with `inspect view` on 127.0.0.1, and takes the tab with headless Chromium
(`apt-get install chromium`). Not a test: run it by hand from the repository root.

    python benchmarks/scoring_tab_screenshot.py scoring.png [--benchmark safety_diagnostic]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bedside_bench.doubles import ProviderDouble  # noqa: E402

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("no Chromium on PATH (apt-get install -y chromium)")


async def screenshot(url: str, window_size: str, profile: str, wait: float = 60.0) -> bytes:
    """The page at `url` once its explanation table is drawn, through the DevTools protocol
    (a plain `--screenshot` is taken before the viewer has loaded the sample)."""
    import aiohttp

    port = free_port()
    browser = subprocess.Popen(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={window_size}",
            f"--remote-debugging-port={port}",
            f"--user-data-dir={profile}/chromium",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/json/version")
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                pages = [p for p in await response.json() if p["type"] == "page"]
            async with session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                ids = iter(range(1, 10_000))

                async def call(method: str, **params: Any) -> dict[str, Any]:
                    n = next(ids)
                    await ws.send_json({"id": n, "method": method, "params": params})
                    while True:
                        message = await ws.receive_json()
                        if message.get("id") == n:
                            result: dict[str, Any] = message.get("result", {})
                            return result

                await call("Page.enable")
                await call("Page.navigate", url=url)
                deadline = time.monotonic() + wait
                while time.monotonic() < deadline:
                    found = await call(
                        "Runtime.evaluate",
                        expression="document.body.innerText.includes('criterion')",
                        returnByValue=True,
                    )
                    if found.get("result", {}).get("value") is True:
                        break
                    await asyncio.sleep(0.5)
                else:
                    raise TimeoutError(f"the Scoring tab did not show within {wait} s: {url}")
                await asyncio.sleep(1.0)  # let the table settle (fonts, layout)
                shot = await call("Page.captureScreenshot", format="png")
                return base64.b64decode(shot["data"])
    finally:
        browser.terminate()
        browser.wait(timeout=30)


def run_case(log_dir: Path, benchmark: str, env: dict[str, str]) -> tuple[Path, str]:
    """One case through `inspect eval`; its log file and sample id."""
    subprocess.run(
        [
            str(BIN / "inspect"),
            "eval",
            f"bedside_bench/{benchmark}",
            "--model",
            "openai/gpt-4.1-mini",
            "--model-role",
            "grader=openai/gpt-4.1",
            "-T",
            f"data_dir={ROOT / 'data' / 'synthetic'}",
            "--limit",
            "1",
            "--log-dir",
            str(log_dir),
            "--display",
            "none",
        ],
        env=env,
        check=True,
    )
    from inspect_ai.log import read_eval_log

    (log_file,) = sorted(log_dir.glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.samples, log.error
    return log_file, str(log.samples[0].id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--benchmark", default="safety_diagnostic")
    parser.add_argument("--window-size", default="1400,900")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ProviderDouble() as double:
        log_dir = Path(tmp) / "logs"
        env = double.subprocess_env()
        log_file, sample_id = run_case(log_dir, args.benchmark, env)
        port = free_port()
        view = subprocess.Popen(
            [str(BIN / "inspect"), "view", "--log-dir", str(log_dir), "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for(f"http://127.0.0.1:{port}/")
            # inspect view's hash route of a sample tab: #/logs/FILE/samples/sample/ID/EPOCH/TAB
            route = "/".join(
                urllib.parse.quote(part, safe="")
                for part in ("logs", log_file.name, "samples", "sample", sample_id, "1", "scoring")
            )
            url = f"http://127.0.0.1:{port}/#/{route}"
            png = asyncio.run(screenshot(url, args.window_size, tmp))
            args.out.write_bytes(png)
        finally:
            view.terminate()
            view.wait(timeout=30)
    print(f"{args.out} ({url})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
