"""Signing up from an app with the keyboard alone, in English and Simplified Chinese, at phone
(390 px) and desktop (1280 px) width: the demo app's "Login with Portico", the sign-in page's
"Create account", the form, "Check your email", the mailed link (read from the outbox), its
confirmation button, consent, and back in the app, signed in with the new account. A taken
address gets the very same answer, and its owner a notice in the page's language. Every page is
screenshotted and audited with axe (WCAG 2.1 AA)."""

import re
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

from test_accessibility import assert_accessible, replaced

STRONG = "violet tram under seven lanterns"

TEXTS = {
    "en": {"sent": "Check your email", "subject": "Subject: Finish creating your Portico account",
           "notice": "Subject: Someone tried to create a Portico account with your address",
           "confirm": "Finish creating your account", "lang": "en"},
    "zh-CN": {"sent": "请查收电子邮件", "subject": "Subject: 完成创建您的 Portico 账户",
              "notice": "Subject: 有人尝试用您的地址创建 Portico 账户",
              "confirm": "完成创建账户", "lang": "zh-Hans"},
}


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def focused(driver):
    return driver.switch_to.active_element


def tab_to(driver, matches, limit=60):
    """Presses Tab until the focused element satisfies `matches`; fails after `limit` presses."""
    for _ in range(limit):
        focused(driver).send_keys(Keys.TAB)
        if matches(focused(driver)):
            return focused(driver)
    raise AssertionError("Tab never reached the element")


def by_name(name):
    return lambda element: element.get_attribute("name") == name


def press_enter_and_wait(driver):
    """Enter on the focused element, then waits until another page has replaced this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    focused(driver).send_keys(Keys.ENTER)
    WebDriverWait(driver, 20).until(replaced(page))


def fill_form(driver, fields):
    """Types each (name, text) into its field, reaching every field by Tab alone."""
    for name, text in fields:
        field = tab_to(driver, by_name(name))
        field.send_keys(text)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_sign_up_from_an_app_with_the_keyboard_alone(demo_server, sized_browser, language, screenshot):
    driver = sized_browser
    text = TEXTS[language]
    shot = f"{language}-{driver.portico_width}"
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}})

    def check(page):
        assert_accessible(driver, page)
        screenshot(driver, f"signup-keyboard-{page}-{shot}")

    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico"))
    tab_to(driver, lambda element: element.get_attribute("id") == "login-with-portico")
    press_enter_and_wait(driver)
    wait_for(driver, (By.NAME, "email"))
    tab_to(driver, lambda element: (element.get_attribute("href") or "").startswith(
        demo_server.url + "/signup?request="))
    press_enter_and_wait(driver)

    wait_for(driver, (By.NAME, "postal_code"))
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == text["lang"]
    check("form")
    email = f"keys-{uuid.uuid4().hex[:10]}@browser.example"
    fill_form(driver, [("name", "Kim Keyboard"), ("email", email), ("password", STRONG), ("postal_code", "10115")])
    tab_to(driver, lambda element: element.get_attribute("type") == "submit")
    press_enter_and_wait(driver)

    sent = wait_for(driver, (By.ID, "signup-sent"))
    assert email in sent.text
    assert text["sent"] in driver.page_source
    check("sent")
    answer = driver.find_element(By.TAG_NAME, "main").text.replace(email, "ADDRESS")

    mail = demo_server.mail_to(email, containing=text["subject"])
    link = re.search(r"(http://\S+/signup/verify\?token=\S+)", mail).group(1)
    driver.get(link)                                     # "opening the mail"
    wait_for(driver, (By.ID, "signup-confirm"))
    assert text["confirm"] in driver.page_source
    assert email in driver.page_source
    check("confirm")
    tab_to(driver, lambda element: element.get_attribute("type") == "submit")
    press_enter_and_wait(driver)

    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))
    assert "Kim Keyboard" in driver.page_source
    check("consent")
    tab_to(driver, lambda element: element.get_attribute("value") == "allow")
    press_enter_and_wait(driver)
    wait_for(driver, (By.ID, "signed-in"))
    assert driver.current_url.startswith(demo_server.url + "/demo/callback")
    assert email in driver.find_element(By.ID, "profile").text
    screenshot(driver, f"signup-keyboard-app-{shot}")

    # The same address again (now taken) gets the very same answer; its owner gets a notice.
    driver.delete_all_cookies()
    driver.get(demo_server.url + "/signup")
    wait_for(driver, (By.NAME, "postal_code"))
    fill_form(driver, [("name", "Somebody Else"), ("email", email), ("password", STRONG)])
    tab_to(driver, lambda element: element.get_attribute("type") == "submit")
    press_enter_and_wait(driver)
    wait_for(driver, (By.ID, "signup-sent"))
    again = driver.find_element(By.TAG_NAME, "main").text.replace(email, "ADDRESS")
    # The first answer had links carrying the app's request; compare the words only.
    assert again == answer
    WebDriverWait(driver, 10).until(lambda _: text["notice"] in demo_server.mail_to(email))
