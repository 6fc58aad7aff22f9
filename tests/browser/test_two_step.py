"""Two-step verification in a real browser, by keyboard only: turned on from Your Account
(the code computed here from the text key the page shows, as an authenticator app would), the
recovery codes shown once, the second sign-in step with a wrong code, a good code and a
recovery code (behind "Use a recovery code instead"), and turning it off with the password.
Turning it on asks for the password as well as the first code.
Every page is screenshotted at phone (390 px) and desktop (1280 px) width, in English and
Simplified Chinese."""

import base64
import hashlib
import hmac
import shutil
import struct
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from test_accounts import gone, wait_for

WORDS = {
    "en": {"title": "Two-step verification", "wrong": "That code is not right", "on": "Two-step verification is on",
           "off": "Two-step verification is off"},
    "zh-CN": {"title": "两步验证", "wrong": "验证码不正确", "on": "两步验证已开启", "off": "两步验证已关闭"},
}


def totp(secret_text, step):
    """RFC 6238 with HMAC-SHA1, 6 digits, for the key as the page shows it (groups of four)."""
    key = secret_text.replace(" ", "")
    key = base64.b32decode(key + "=" * (-len(key) % 8))
    mac = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


@pytest.fixture(params=[(390, "en"), (1280, "en"), (390, "zh-CN"), (1280, "zh-CN")],
                ids=["phone-en", "desktop-en", "phone-zh", "desktop-zh"])
def language_browser(request):
    """A headless chromium at a width, asking for a language (Accept-Language)."""
    width, language = request.param
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},900", f"--lang={language}"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 844 if width < 600 else 900, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.portico_width = width
    driver.portico_language = language
    yield driver
    driver.quit()


def keyboard_submit(driver, field_name, text):
    """Types into a field and presses Enter there, then waits for the next page."""
    page = driver.find_element(By.TAG_NAME, "html")
    field = driver.find_element(By.NAME, field_name)
    field.clear()
    field.send_keys(text)
    field.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(lambda _: gone(page))


def sign_in_with_password(driver, base, email, password):
    driver.get(base + "/account")
    wait_for(driver, (By.NAME, "email"))
    driver.find_element(By.NAME, "email").send_keys(email)
    keyboard_submit(driver, "password", password)


def current_step():
    return int(time.time()) // 30


def test_two_step_verification_by_keyboard(demo_server, language_browser, screenshot):
    driver = language_browser
    language = driver.portico_language
    words = WORDS[language]
    shot = f"{language}-{driver.portico_width}"
    email, password = demo_server.add_user(name="Tove Two-Step")
    base = demo_server.url

    # Turn it on: Your Account → the link (Enter) → the QR code and the key → a first code.
    sign_in_with_password(driver, base, email, password)
    link = wait_for(driver, (By.ID, "two-step-link"))
    page = driver.find_element(By.TAG_NAME, "html")
    link.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(lambda _: gone(page))
    wait_for(driver, (By.NAME, "otp"))
    assert words["title"] in driver.page_source
    qr = driver.find_element(By.CSS_SELECTOR, "svg.qr[role=img]")
    assert qr.get_attribute("aria-label")
    assert qr.size["width"] >= 150
    otp = driver.find_element(By.NAME, "otp")
    assert otp.get_attribute("autocomplete") == "one-time-code"
    assert otp.get_attribute("inputmode") == "numeric"
    label = driver.find_element(By.CSS_SELECTOR, "label[for=otp]")
    assert label.text
    secret = driver.find_element(By.ID, "secret").text
    assert len(secret.replace(" ", "")) == 32
    # Turning it on asks for the password too (a stolen session is not enough).
    confirm_password = driver.find_element(By.NAME, "confirm_password")
    assert confirm_password.get_attribute("type") == "password"
    assert confirm_password.get_attribute("autocomplete") == "current-password"
    assert driver.find_element(By.CSS_SELECTOR, "label[for=confirm_password]").text
    screenshot(driver, f"two-step-enroll-{shot}")
    driver.find_element(By.NAME, "otp").send_keys(totp(secret, current_step()))
    keyboard_submit(driver, "confirm_password", password)
    codes_list = wait_for(driver, (By.ID, "recovery-codes"))
    codes = [element.text for element in codes_list.find_elements(By.TAG_NAME, "code")]
    assert len(codes) == 10
    screenshot(driver, f"two-step-codes-{shot}")
    saved = driver.find_element(By.ID, "codes-saved")
    page = driver.find_element(By.TAG_NAME, "html")
    saved.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(lambda _: gone(page))
    wait_for(driver, (By.CSS_SELECTOR, ".notice[role=status]"))
    assert words["on"] in driver.page_source
    screenshot(driver, f"two-step-account-on-{shot}")

    # Sign in again: the password leads to the second step; a wrong code is announced.
    driver.delete_all_cookies()
    sign_in_with_password(driver, base, email, password)
    wait_for(driver, (By.NAME, "otp"))
    assert "/login" in driver.current_url
    screenshot(driver, f"two-step-sign-in-{shot}")
    keyboard_submit(driver, "otp", "000000")
    alert = wait_for(driver, (By.CSS_SELECTOR, "[role=alert]"))
    assert words["wrong"] in alert.text
    assert driver.find_element(By.NAME, "otp").get_attribute("aria-invalid") == "true"
    screenshot(driver, f"two-step-sign-in-error-{shot}")
    # The next step's code (the one enrollment used cannot come back).
    keyboard_submit(driver, "otp", totp(secret, current_step() + 1))
    wait_for(driver, (By.ID, "two-step-link"))
    assert "/account" in driver.current_url

    # A recovery code, reached by keyboard: Tab from the code field to the toggle, Enter opens it.
    driver.delete_all_cookies()
    sign_in_with_password(driver, base, email, password)
    otp = wait_for(driver, (By.NAME, "otp"))
    otp.click()
    active = driver.switch_to.active_element
    active.send_keys(Keys.TAB)                        # the Verify button
    driver.switch_to.active_element.send_keys(Keys.TAB)   # the toggle
    toggle = driver.switch_to.active_element
    assert toggle.tag_name == "summary"
    toggle.send_keys(Keys.ENTER)
    assert driver.find_element(By.ID, "use-recovery").get_attribute("open") is not None
    driver.switch_to.active_element.send_keys(Keys.TAB)
    assert driver.switch_to.active_element.get_attribute("name") == "recovery_code"
    screenshot(driver, f"two-step-recovery-{shot}")
    keyboard_submit(driver, "recovery_code", codes[0])
    wait_for(driver, (By.ID, "two-step-link"))
    assert "9" in driver.find_element(By.ID, "two-step-state").text

    # Turn it off with the password.
    link = driver.find_element(By.ID, "two-step-link")
    page = driver.find_element(By.TAG_NAME, "html")
    link.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(lambda _: gone(page))
    wait_for(driver, (By.NAME, "remove_password"))
    screenshot(driver, f"two-step-manage-{shot}")
    keyboard_submit(driver, "remove_password", password)
    wait_for(driver, (By.CSS_SELECTOR, ".notice[role=status]"))
    assert words["off"] in driver.page_source
    assert "done=two_step_off" in driver.current_url

    # Turning it on sent a mail to this address first.
    turned_off = "Two-step verification was turned off" if language == "en" else "两步验证已关闭"
    assert turned_off in demo_server.mail_to(email, containing=turned_off)
