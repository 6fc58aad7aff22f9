"""Passkeys in real chromium with its virtual authenticator (CDP `WebAuthn`: CTAP2, internal
transport, resident keys, user verification): a passkey added from Your Account, then signing
in a fresh session (the page's conditional request, or the "Sign in with a passkey" button),
renamed and removed; and an account created at sign-up with a passkey and no password, whose
passkey then signs in. (That a removed passkey is then refused is checked over HTTP in
PasskeyManagementTests: here, the conditional request racing the button made it flaky.) The
server runs on `localhost` (an IP address cannot be a WebAuthn RP ID). Screenshots at 1280 px
of each new page state."""

import re
import shutil
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import DemoPortico
from test_accessibility import assert_accessible
import portico_server


class LocalhostPortico(DemoPortico):
    """`portico serve --demo` listening on localhost, so its issuer's host is a domain."""

    def __init__(self, binary):
        portico_server.Server.__init__(self, binary, "portico-browser-passkeys-", "--demo", "--host", "localhost",
                                       banner_until=r"Demo sign-in: ")
        sign_in = self.find(r"Demo sign-in: (\S+ / \S+)")
        self.email, self.password = sign_in.split(" / ")


@pytest.fixture(scope="module")
def localhost_server(portico_binary):
    instance = LocalhostPortico(portico_binary)
    yield instance
    instance.stop()


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--lang=en"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                            options=options)


def add_authenticator(driver, verified=True):
    driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    return driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": verified, "automaticPresenceSimulation": True}})["authenticatorId"]


def sign_in_with_password(driver, server):
    driver.get(f"{server.url}/account")
    WebDriverWait(driver, 20).until(lambda d: "/login" in d.current_url)
    driver.find_element(By.ID, "email").send_keys(server.email)
    driver.find_element(By.ID, "password").send_keys(server.password)
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button[type=submit]").click()
    try:
        WebDriverWait(driver, 20).until(lambda d: d.current_url.rstrip("/").endswith("/account"))
    except Exception:
        raise AssertionError(driver.current_url + " " + driver.find_element(By.TAG_NAME, "body").text[:500])


def passkey_sign_in(driver, server, until):
    """Opens /login; the page's conditional request (autofill) or, where it has not finished,
    the "Sign in with a passkey" button signs in; waits for `until`."""
    driver.get(f"{server.url}/login")

    clicked = []

    def done(d):
        if until(d):
            return True
        if not clicked:
            try:
                button = d.find_element(By.ID, "passkey-sign-in")
                if button.is_displayed():
                    button.click()
                    clicked.append(True)
            except Exception:  # the page navigated meanwhile (the conditional request finished)
                pass
        return until(d)

    WebDriverWait(driver, 20, poll_frequency=0.5).until(done)


def test_passkey_added_then_signs_in_renamed_and_removed(localhost_server, screenshot):
    server = localhost_server
    driver = make_driver()
    try:
        authenticator = add_authenticator(driver)
        sign_in_with_password(driver, server)
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "passkey-add").is_displayed())
        screenshot(driver, "passkeys-account-empty-desktop-en")
        driver.find_element(By.ID, "passkey-add").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#passkey-list li.passkey"))
        screenshot(driver, "passkeys-account-added-desktop-en")
        credentials = driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})
        assert len(credentials["credentials"]) == 1 and credentials["credentials"][0]["isResidentCredential"]

        # A fresh session (cookies gone, same authenticator): sign in with the passkey.
        driver.delete_all_cookies()
        driver.get(f"{server.url}/login")
        screenshot(driver, "passkeys-login-desktop-en")
        passkey_sign_in(driver, server, lambda d: d.current_url.rstrip("/").endswith("/account"))

        # Rename, then remove (the account keeps its password, so the passkey may go).
        field = driver.find_element(By.CSS_SELECTOR, "#passkey-list input[name=passkey_name]")
        field.clear()
        field.send_keys("Work laptop")
        driver.find_element(By.CSS_SELECTOR, "#passkey-list button[name=passkey_rename]").click()
        # The page reloads after the post: an element of the old page may go stale while waiting.
        WebDriverWait(driver, 20, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: "Work laptop" in d.find_element(By.ID, "passkey-list").text)
        screenshot(driver, "passkeys-account-renamed-desktop-en")
        driver.find_element(By.CSS_SELECTOR, "#passkey-list button[name=passkey_remove]").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "no-passkeys"))

    finally:
        driver.quit()


def phone_screenshot(driver, screenshot, name):
    """The current page at 390 px wide, then back to 1280."""
    driver.set_window_size(390, 844)
    screenshot(driver, name)
    driver.set_window_size(1280, 900)


def test_sign_up_with_a_passkey_and_no_password(localhost_server, screenshot):
    """/signup's "with a passkey instead", the mailed link's page creating the passkey in the
    virtual authenticator, the account ready with no password; then that passkey signs a fresh
    session in. Screenshots of the new states in English and Chinese, audited with axe."""
    server = localhost_server
    email = f"passkey-signup-{uuid.uuid4().hex[:8]}@example.com"
    driver = make_driver()
    try:
        authenticator = add_authenticator(driver)
        driver.get(f"{server.url}/signup?ui_locales=zh-CN")
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "signup-passkey").is_displayed())
        assert_accessible(driver, "sign-up with the passkey button (zh)")
        screenshot(driver, "passkeys-signup-desktop-zh")
        phone_screenshot(driver, screenshot, "passkeys-signup-phone-zh")
        driver.get(f"{server.url}/signup")
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "signup-passkey").is_displayed())
        screenshot(driver, "passkeys-signup-desktop-en")
        phone_screenshot(driver, screenshot, "passkeys-signup-phone-en")
        driver.find_element(By.ID, "name").send_keys("Pat Passkey")
        driver.find_element(By.ID, "email").send_keys(email)
        driver.find_element(By.ID, "signup-passkey").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "signup-sent"))
        mail = server.mail_to(email)
        link = re.search(r"http://\S+/signup/verify\?token=\S+", mail).group(0)

        driver.get(link + "&ui_locales=zh-CN")
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "signup-passkey-create").is_displayed())
        assert not driver.find_element(By.ID, "signup-passkey-unsupported").is_displayed()
        assert_accessible(driver, "passkey sign-up link page (zh)")
        screenshot(driver, "passkeys-signup-create-desktop-zh")
        phone_screenshot(driver, screenshot, "passkeys-signup-create-phone-zh")
        driver.get(link)
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "signup-passkey-create").is_displayed())
        assert_accessible(driver, "passkey sign-up link page (en)")
        screenshot(driver, "passkeys-signup-create-desktop-en")
        phone_screenshot(driver, screenshot, "passkeys-signup-create-phone-en")
        driver.find_element(By.ID, "signup-passkey-create").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "account-ready"))
        screenshot(driver, "passkeys-signup-ready-desktop-en")
        credentials = driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})
        assert len(credentials["credentials"]) == 1 and credentials["credentials"][0]["isResidentCredential"]

        # A fresh session: the passkey made at sign-up signs in.
        driver.delete_all_cookies()
        passkey_sign_in(driver, server, lambda d: d.current_url.rstrip("/").endswith("/account"))
        assert email in driver.find_element(By.TAG_NAME, "body").text

        # No password yet: Your Account offers to set one, and the passkey sign-in of a moment
        # ago stands in for the current password the form cannot ask for.
        driver.find_element(By.ID, "change-password").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.NAME, "password"))
        assert not driver.find_elements(By.NAME, "current_password")
        assert_accessible(driver, "set a first password")
        screenshot(driver, "passkeys-set-password-desktop-en")
        phone_screenshot(driver, screenshot, "passkeys-set-password-phone-en")
        for name in ("password", "password_confirmation"):
            driver.find_element(By.NAME, name).send_keys("a first password for Pat")
        driver.find_element(By.CSS_SELECTOR, "form[action^='/account/password'] button[type=submit]").click()
        WebDriverWait(driver, 20).until(lambda d: d.current_url.split("?")[0].rstrip("/").endswith("/account"))
        assert "/account/password" not in driver.current_url
    finally:
        driver.quit()
