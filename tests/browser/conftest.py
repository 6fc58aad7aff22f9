"""Fixtures for real-browser tests: a real `portico serve` on a free loopback port with its
own SQLite file, and a headless Debian chromium driven by Selenium."""

import pathlib
import sys
import shutil
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "tests" / "browser" / "screenshots"
sys.path.insert(0, str(ROOT / "tests" / "support"))

import portico_server  # noqa: E402


@pytest.fixture(scope="session")
def portico_binary():
    binary = portico_server.binary()
    if binary is None:
        pytest.fail("no portico binary; run `swift build` first (or set PORTICO_BINARY)")
    return binary


@pytest.fixture(scope="session")
def server(portico_binary):
    """Starts `portico serve` on port 0 and yields its base URL; stops it with SIGTERM."""
    instance = portico_server.Server(portico_binary, "portico-browser-")
    yield instance.url
    instance.stop()


class DemoPortico(portico_server.Server):
    """A running `portico serve --demo`: its URL, the demo credentials it printed, and the
    admin command line for its database."""

    def __init__(self, binary):
        super().__init__(binary, "portico-browser-demo-", "--demo", banner_until=r"Demo sign-in: ")
        self.demo_url = self.find(r"Demo: open (http://\S+)")
        sign_in = self.find(r"Demo sign-in: (\S+ / \S+)")
        if not (self.demo_url and sign_in):
            self.process.kill()
            raise RuntimeError("portico serve --demo did not print its URL and demo sign-in")
        self.email, self.password = sign_in.split(" / ")

    def add_user(self, name="Browser Person", password="browser-password"):
        """Makes a fresh account with `portico user add` while the server runs."""
        email = f"person-{uuid.uuid4().hex[:10]}@browser.example"
        result = self.command("user", "add", "--email", email, "--name", name, "--postal-code", "75001",
                              "--password-stdin", stdin=password + "\n")
        assert result.returncode == 0, result.stderr
        return email, password


@pytest.fixture(scope="session")
def demo_server(portico_binary):
    """Starts `portico serve --port 0 --demo` on a fresh database and reads the demo lines of
    its banner (the URL to open and the demo sign-in)."""
    instance = DemoPortico(portico_binary)
    yield instance
    instance.stop()


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
