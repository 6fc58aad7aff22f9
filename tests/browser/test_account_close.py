"""Your Account's "Download your data" and "Close your account" in a real browser, by keyboard
where a person would type: the JSON file downloaded by the button (and read here), then closing
the account: a wrong password refused with an alert, the right one, the confirmation, and the
signed-out goodbye page; afterwards the account is gone. Every page state is checked with axe
(WCAG 2.1 A/AA) and screenshotted at phone (390 px) and desktop (1280 px) width, in English and
Simplified Chinese."""

import glob
import json
import os
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from test_accessibility import assert_accessible
from test_accounts import gone, wait_for
from test_two_step import keyboard_submit, language_browser, sign_in_with_password  # noqa: F401 (fixture)

WORDS = {
    "en": {"download": "Download your data", "close": "Close your account", "wrong": "That password is not right",
           "closed": "Your account is closed"},
    "zh-CN": {"download": "下载您的数据", "close": "注销您的账户", "wrong": "密码不正确", "closed": "您的账户已注销"},
}


def downloaded(directory, timeout=20):
    """The path of the data file once chromium has finished writing it into `directory`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        files = glob.glob(os.path.join(directory, "portico-data-*.json"))
        if files and not glob.glob(os.path.join(directory, "*.crdownload")):
            return files[0]
        time.sleep(0.1)
    raise AssertionError("no portico-data-*.json in " + directory + ": " + str(os.listdir(directory)))


def test_download_data_and_close_account(demo_server, language_browser, screenshot, tmp_path):
    driver = language_browser
    language = driver.portico_language
    words = WORDS[language]
    shot = f"{language}-{driver.portico_width}"
    email, password = demo_server.add_user(name="Carla Closing")
    base = demo_server.url
    sign_in_with_password(driver, base, email, password)

    # Download your data: the button posts the page's form; the file lands in the folder.
    button = wait_for(driver, (By.ID, "data-download"))
    assert button.text == words["download"]
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    assert_accessible(driver, "account-data")
    screenshot(driver, f"account-data-{shot}")
    button.send_keys(Keys.ENTER)
    with open(downloaded(str(tmp_path)), encoding="utf-8") as file:
        data = json.load(file)
    assert data["profile"]["email"] == email
    assert data["profile"]["name"] == "Carla Closing"
    assert len(data["sessions"]) == 1 and data["sessions"][0]["this_browser"] is True
    assert data["passkeys"] == [] and data["apps_allowed"] == []
    text = json.dumps(data)
    assert "argon2" not in text and password not in text
    assert driver.get_cookie("portico_session")["value"] not in text

    # Close your account: the link, then a wrong password (an alert, nothing closed).
    link = driver.find_element(By.ID, "account-close")
    assert link.text == words["close"]
    page = driver.find_element(By.TAG_NAME, "html")
    link.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(lambda _: gone(page))
    field = wait_for(driver, (By.NAME, "current_password"))
    assert field.get_attribute("type") == "password"
    assert field.get_attribute("autocomplete") == "current-password"
    assert driver.find_element(By.CSS_SELECTOR, "label[for=current_password]").text
    assert_accessible(driver, "account-close-password")
    screenshot(driver, f"account-close-password-{shot}")
    keyboard_submit(driver, "current_password", "not-the-password")
    alert = wait_for(driver, (By.CSS_SELECTOR, "[role=alert]#account-close-error"))
    assert alert.is_displayed()
    assert words["wrong"] in driver.page_source
    assert driver.find_elements(By.ID, "account-close-confirm") == []
    assert_accessible(driver, "account-close-wrong")
    screenshot(driver, f"account-close-wrong-{shot}")

    # The right password: the confirmation, then the goodbye page, signed out.
    keyboard_submit(driver, "current_password", password)
    confirm = wait_for(driver, (By.ID, "account-close-confirm"))
    assert_accessible(driver, "account-close-confirm")
    screenshot(driver, f"account-close-confirm-{shot}")
    page = driver.find_element(By.TAG_NAME, "html")
    confirm.send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(lambda _: gone(page))
    wait_for(driver, (By.ID, "account-closed"))
    assert words["closed"] in driver.page_source
    assert email not in driver.page_source
    assert_accessible(driver, "account-closed")
    screenshot(driver, f"account-closed-{shot}")

    # Signed out, and the account is gone: Your Account asks to sign in, and signing in fails.
    driver.get(base + "/account")
    WebDriverWait(driver, 20).until(lambda d: "/login" in d.current_url)
    listed = demo_server.command("user", "list")
    assert email not in listed.stdout
