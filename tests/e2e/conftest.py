"""Fixtures for the browser tests: the real `bullpen` server on a temp SQLite database with the real
data pack, and headless Chromium driven by Selenium."""
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "screenshots"
REQUIRED = os.environ.get("BULLPEN_REQUIRE_BROWSER") == "1"


def _skip_or_fail(reason):
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)


def _pack():
    for candidate in [os.environ.get("BULLPEN_MARKET_DATA"), str(ROOT.parent / "shared" / "market-data")]:
        if candidate and (pathlib.Path(candidate) / "universe.csv").exists():
            return candidate
    return None


def _serve(market_data):
    """Starts the real binary on a temporary SQLite database: on `market_data` (a pack directory), or
    on the demo exchange when it is None. Yields the base URL, then stops it."""
    # BULLPEN_BINARY: a copy of the debug build (with its .resources bundles beside it), for a run beside a rebuild.
    binary = pathlib.Path(os.environ.get("BULLPEN_BINARY") or ROOT / ".build" / "debug" / "bullpen")
    if not binary.exists():
        _skip_or_fail(f"{binary} is missing: run `swift build` first")
    data = tempfile.mkdtemp(prefix="bullpen-e2e-")
    env = dict(os.environ, BULLPEN_BCRYPT_COST="4", BULLPEN_REGISTRATIONS_PER_ADDRESS="100000", BULLPEN_ORDERS_PER_MINUTE="100000",
               BULLPEN_CONNECTIONS_PER_ADDRESS="0", BULLPEN_MARKET_DATA="", LOG_LEVEL="warning")
    arguments = [str(binary), "serve", "--port", "0", "--data-dir", data] + (["--market-data", market_data] if market_data else [])
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    url = None
    deadline = time.time() + 60
    while time.time() < deadline and url is None:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        if "Bullpen listening on " in line:
            url = line.strip().split("Bullpen listening on ")[1]
    if url is None:
        process.kill()
        pytest.fail("the server did not start")
    yield url
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def server():
    pack = _pack()
    if pack is None:
        _skip_or_fail("no data pack at BULLPEN_MARKET_DATA or ../shared/market-data")
    yield from _serve(pack)


@pytest.fixture(scope="session")
def demo_server():
    """The server on the demo exchange (invented companies and coins, simulated prices)."""
    yield from _serve(None)


@pytest.fixture(scope="session")
def driver_factory():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _skip_or_fail("selenium is not installed (pip install selenium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    chromedriver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chromium or not chromedriver:
        _skip_or_fail("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    drivers = []

    def make(width, height):
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", "--force-device-scale-factor=1", "--lang=en-US"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(chromedriver), options=options)
        driver.set_window_size(width, height)
        drivers.append(driver)
        return driver

    yield make
    for driver in drivers:
        driver.quit()


@pytest.fixture(scope="session")
def screenshots():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
