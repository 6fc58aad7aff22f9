"""The two "very busy" pages a flood shows people, as a person sees them: the one any page gets
when the worker queue is full (ServerConfiguration.maxPendingAsyncRequests, OverloadPage), and
the one a sign-in gets when every password-check turn is taken (PasswordCheckGate). Each in
English and Simplified Chinese, at 390 px and 1280 px, screenshotted and audited with axe.

Both states are made for real, with no test hook in the server: the test holds SQLite's write
lock on the server's database (another connection's BEGIN IMMEDIATE), so every request that
writes waits there (the store's busy timeout). Forgot-password forms (each records a throttle
attempt before anything else) from enough connections then fill the worker queue; sign-ins,
one per core, take every password-check turn (they record theirs inside the turn). Requests
that gave up are sent again for as long as the state is needed, so the page is looked for
until it shows, not after a guessed delay."""

import html
import http.client
import os
import re
import sqlite3
import threading
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import portico_server
from test_accessibility import assert_accessible, replaced, wait_for

TITLE = {"en": "Portico is very busy", "zh-CN": "Portico 当前非常繁忙"}
QUEUE_FULL = {"en": "could not open this page yet", "zh-CN": "我们暂时无法打开此页面"}
SIGN_IN_SHED = {"en": "Too many people are signing in at this moment", "zh-CN": "此刻正在登录的人太多"}


@pytest.fixture
def own_server(portico_binary):
    """A server of this test's own: its database gets locked."""
    if os.environ.get("PORTICO_CLUSTER_URL"):
        pytest.skip("locks a SQLite database of its own")
    instance = portico_server.Server(portico_binary, "portico-browser-busy-")
    yield instance
    instance.stop()


class Form:
    """A page's form as a client fetched it: its CSRF cookie and fields."""

    def __init__(self, base, path):
        self.base = urllib.parse.urlsplit(base)
        self.path = path
        connection = http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=30)
        connection.request("GET", path)
        response = connection.getresponse()
        page = response.read().decode("utf-8")
        cookies = [value.split(";")[0] for name, value in response.getheaders() if name.lower() == "set-cookie"]
        connection.close()
        self.cookie = "; ".join(cookies)
        self.fields = {html.unescape(name): html.unescape(value) for name, value in re.findall(
            r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}

    def post(self, source, **fields):
        """Sends the form from `source` (a loopback address) and returns the status; 0 on failure."""
        body = urllib.parse.urlencode({**self.fields, **fields})
        try:
            connection = http.client.HTTPConnection(
                self.base.hostname, self.base.port, timeout=60, source_address=(source, 0))
            connection.request("POST", self.path, body, {
                "Content-Type": "application/x-www-form-urlencoded", "Cookie": self.cookie,
                "Origin": f"{self.base.scheme}://{self.base.netloc}"})
            status = connection.getresponse().status
            connection.close()
            return status
        except OSError:
            return 0


class Flood:
    """`count` clients, each sending `form` again as soon as it is answered, until stopped."""

    def __init__(self, form, count, **fields):
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(form, f"127.0.0.{2 + index % 4}", fields), daemon=True)
                        for index in range(count)]
        for thread in self.threads:
            thread.start()

    def run(self, form, source, fields):
        while not self.stopped.is_set():
            form.post(source, **fields)

    def stop(self):
        self.stopped.set()
        for thread in self.threads:
            thread.join(timeout=60)


class WriteLock:
    """SQLite's write lock on the server's database, held by a connection of the test's own."""

    def __init__(self, database):
        self.connection = sqlite3.connect(database.removeprefix("sqlite:"), isolation_level=None, timeout=30)
        self.connection.execute("BEGIN IMMEDIATE")

    def release(self):
        self.connection.execute("ROLLBACK")
        self.connection.close()


def open_language(driver, language):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}})


def look_until(driver, show, language, detail, attempts=60):
    """Runs `show` (which loads a page) until the busy page with `detail` shows; returns its text."""
    for _ in range(attempts):
        show()
        heading = wait_for(driver, (By.TAG_NAME, "h1")).text
        text = driver.find_element(By.TAG_NAME, "body").text
        if heading == TITLE[language] and detail[language] in text:
            return text
    raise AssertionError(f"the busy page never showed; last heading: {heading!r}")


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_full_worker_queue_shows_the_very_busy_page(own_server, sized_browser, language, screenshot):
    driver = sized_browser
    open_language(driver, language)
    base = own_server.url
    form = Form(base, "/password/forgot")
    lock = WriteLock(own_server.database)
    # More than the queue holds (64 per core), from four addresses (the per-client cap is 128).
    flood = Flood(form, 64 * (os.cpu_count() or 1) + 16, email="nobody@example.com")
    try:
        text = look_until(driver, lambda: driver.get(f"{base}/login"), language, QUEUE_FULL)
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == (
            "zh-Hans" if language == "zh-CN" else "en")
        assert "Server is busy" not in text
        assert_accessible(driver, "very busy (queue full)")
        screenshot(driver, f"busy-queue-full-{language}-{driver.portico_width}")
    finally:
        lock.release()
        flood.stop()
    driver.get(f"{base}/login")
    assert wait_for(driver, (By.NAME, "email"))


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_sign_in_flood_shows_the_very_busy_page(own_server, sized_browser, language, screenshot):
    driver = sized_browser
    open_language(driver, language)
    base = own_server.url
    form = Form(base, "/login")
    lock = WriteLock(own_server.database)
    # One sign-in per core takes every turn (and waits on the lock inside it).
    flood = Flood(form, os.cpu_count() or 1, email="nobody@example.com", password="not the password")

    def sign_in():
        driver.get(f"{base}/login")
        wait_for(driver, (By.NAME, "email")).send_keys("person@example.com")
        driver.find_element(By.NAME, "password").send_keys("a password")
        button = driver.find_element(By.CSS_SELECTOR, "form [type=submit]")
        button.click()
        # The answer replaces the form's page (a sign-in waits at most half a second for a turn).
        WebDriverWait(driver, 60).until(replaced(button))

    try:
        look_until(driver, sign_in, language, SIGN_IN_SHED)
        assert_accessible(driver, "very busy (sign-in)")
        screenshot(driver, f"busy-sign-in-{language}-{driver.portico_width}")
    finally:
        lock.release()
        flood.stop()
