"""Fixtures for real-browser tests: a real `portico serve` on a free loopback port with its
own SQLite file, and a headless Debian chromium driven by Selenium."""

import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import threading

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "tests" / "browser" / "screenshots"


@pytest.fixture(scope="session")
def portico_binary():
    binary = os.environ.get("PORTICO_BINARY") or str(ROOT / ".build" / "debug" / "portico")
    if not os.access(binary, os.X_OK):
        pytest.fail(f"no portico binary at {binary}; run `swift build` first")
    return binary


@pytest.fixture(scope="session")
def server(portico_binary):
    """Starts `portico serve` on port 0 and yields its base URL; stops it with SIGTERM."""
    workdir = tempfile.mkdtemp(prefix="portico-browser-")
    process = subprocess.Popen(
        [portico_binary, "serve", "--port", "0", "--quiet",
         "--database", f"sqlite:{workdir}/portico.db"],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found = {}

    def read_banner():
        for line in process.stdout:
            match = re.search(r"listening on (http://\S+)", line)
            if match:
                found["url"] = match.group(1)
                return

    reader = threading.Thread(target=read_banner, daemon=True)
    reader.start()
    reader.join(timeout=30)
    if "url" not in found:
        process.kill()
        pytest.fail("portico serve did not print its URL: " + process.stderr.read())
    yield found["url"]
    process.terminate()
    assert process.wait(timeout=30) == 0
    shutil.rmtree(workdir, ignore_errors=True)


def _make_browser(width):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", f"--window-size={width},900"):
        options.add_argument(argument)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browser():
    """A desktop-width (1280 px) headless chromium."""
    driver = _make_browser(1280)
    yield driver
    driver.quit()


@pytest.fixture
def phone_browser():
    """A phone-width (390 px) headless chromium."""
    driver = _make_browser(390)
    yield driver
    driver.quit()


@pytest.fixture
def screenshot():
    """Saves a PNG of the current page as screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(driver, name):
        path = SCREENSHOTS / f"{name}.png"
        driver.save_screenshot(str(path))
        return path

    return take
