"""Fixtures for real-browser tests: a real `portico serve` on a free loopback port with its
own SQLite file, and a headless Debian chromium driven by Selenium."""

import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import threading
import uuid

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


class DemoPortico:
    """A running `portico serve --demo`: its URL, the demo credentials it printed, and the
    admin command line for its database."""

    def __init__(self, binary, database):
        self.binary = binary
        self.database = database
        self.url = None
        self.demo_url = None
        self.email = None
        self.password = None

    def add_user(self, name="Browser Person", password="browser-password"):
        """Makes a fresh account with `portico user add` while the server runs."""
        email = f"person-{uuid.uuid4().hex[:10]}@browser.example"
        result = subprocess.run(
            [self.binary, "user", "add", "--email", email, "--name", name, "--postal-code", "75001",
             "--password-stdin", "--database", self.database],
            input=password + "\n", capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return email, password


@pytest.fixture(scope="session")
def demo_server(portico_binary):
    """Starts `portico serve --port 0 --demo` on a fresh database and reads the demo lines of
    its banner (the URL to open and the demo sign-in)."""
    workdir = tempfile.mkdtemp(prefix="portico-browser-demo-")
    instance = DemoPortico(portico_binary, f"sqlite:{workdir}/portico.db")
    process = subprocess.Popen(
        [portico_binary, "serve", "--port", "0", "--quiet", "--demo", "--database", instance.database],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def read_banner():
        for line in process.stdout:
            if match := re.search(r"listening on (http://\S+)", line):
                instance.url = match.group(1)
            elif match := re.search(r"Demo: open (http://\S+)", line):
                instance.demo_url = match.group(1)
            elif match := re.search(r"Demo sign-in: (\S+) / (\S+)", line):
                instance.email, instance.password = match.group(1), match.group(2)
                return

    reader = threading.Thread(target=read_banner, daemon=True)
    reader.start()
    reader.join(timeout=30)
    if not (instance.url and instance.demo_url and instance.email):
        process.kill()
        pytest.fail("portico serve --demo did not print its URL and demo sign-in: " + process.stderr.read())
    yield instance
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


@pytest.fixture(params=[390, 1280], ids=["phone", "desktop"])
def sized_browser(request):
    """A headless chromium at 390 px (a phone, with mobile emulation) and at 1280 px wide."""
    width = request.param
    driver = _make_browser(width)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 844 if width < 600 else 900, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.portico_width = width
    yield driver
    driver.quit()


@pytest.fixture
def screenshot():
    """Saves a PNG of the whole current page (not just the viewport) as screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(driver, name):
        path = SCREENSHOTS / f"{name}.png"
        width = getattr(driver, "portico_width", None)
        if width is None:
            driver.save_screenshot(str(path))
            return path
        height = driver.execute_script(
            "return Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)")
        viewport = 844 if width < 600 else 900
        metrics = {"width": width, "deviceScaleFactor": 1, "mobile": width < 600}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "height": max(viewport, height)})
        driver.save_screenshot(str(path))
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "height": viewport})
        return path

    return take
