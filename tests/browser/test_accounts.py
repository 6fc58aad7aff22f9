"""Creating and recovering an account in a real browser, through the demo app of
`portico serve --demo`: sign-up from the sign-in page, by the link mailed to the outbox, through
consent to the app, and a password reset by following the link in the outbox; every new page screenshotted at phone
(390 px) and desktop (1280 px) width, and in Simplified Chinese."""

import re
import shutil
import uuid

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

STRONG = "violet tram under seven lanterns"


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def type_into(driver, name, text):
    field = driver.find_element(By.NAME, name)
    field.clear()
    field.send_keys(text)


def submit(driver):
    """Submits the page's form and waits until the answer has replaced the page, so that a
    following wait_for never finds the same element of the page that was just left (such as
    the previous attempt's error message, which then goes stale under the test)."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "main form [type=submit]").click()
    WebDriverWait(driver, 20).until(lambda _: gone(page))


def gone(element):
    """Whether `element` no longer belongs to the page shown. Chromium reports a node of a page
    that was navigated away from either as stale or as "does not belong to the document"."""
    try:
        element.tag_name
        return False
    except WebDriverException:
        return True


def open_login_from_demo(driver, demo_server):
    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico")).click()
    wait_for(driver, (By.NAME, "email"))
    assert "Portico Demo App" in driver.page_source


def test_sign_up_from_an_authorization_through_consent_to_the_app(demo_server, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    open_login_from_demo(driver, demo_server)
    driver.find_element(By.CSS_SELECTOR, 'a[href^="/signup?request="]').click()

    wait_for(driver, (By.NAME, "postal_code"))
    assert "Portico Demo App" in driver.page_source
    for name, autocomplete in [("name", "name"), ("email", "email"), ("password", "new-password"),
                               ("postal_code", "postal-code")]:
        field = driver.find_element(By.NAME, name)
        assert field.get_attribute("autocomplete") == autocomplete
        assert driver.find_element(By.CSS_SELECTOR, f'label[for="{name}"]').text
    screenshot(driver, f"signup-{shot}")

    email = f"new-{uuid.uuid4().hex[:10]}@browser.example"
    type_into(driver, "name", "Nora New")
    type_into(driver, "email", email)
    type_into(driver, "password", "qazwsxedcrfvtgb")       # one of the 10,000 most common
    type_into(driver, "postal_code", "10115")
    submit(driver)
    error = wait_for(driver, (By.ID, "password-error"))
    assert "too common" in error.text
    password = driver.find_element(By.NAME, "password")
    assert "password-error" in password.get_attribute("aria-describedby")
    assert password.get_attribute("value") == ""
    assert driver.find_element(By.NAME, "email").get_attribute("value") == email
    screenshot(driver, f"signup-error-{shot}")

    type_into(driver, "password", STRONG)
    submit(driver)
    sent = wait_for(driver, (By.ID, "signup-sent"))                 # the same answer for every address
    assert email in sent.text
    screenshot(driver, f"signup-sent-{shot}")

    mail = demo_server.mail_to(email, containing="Subject: Finish creating your Portico account")
    link = re.search(r"(http://\S+/signup/verify\?token=\S+)", mail).group(1)
    driver.get(link)
    wait_for(driver, (By.ID, "signup-confirm"))
    screenshot(driver, f"signup-confirm-{shot}")
    submit(driver)
    allow = wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))
    assert "Nora New" in driver.page_source
    allow.click()

    wait_for(driver, (By.ID, "signed-in"))
    assert driver.current_url.startswith(demo_server.url + "/demo/callback")
    assert email in driver.find_element(By.ID, "profile").text
    screenshot(driver, f"signup-callback-{shot}")

    driver.get(link)                                                # the link worked once
    wait_for(driver, (By.ID, "signup-link-dead"))
    screenshot(driver, f"signup-link-dead-{shot}")


def test_password_reset_by_reading_the_outbox(demo_server, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    email, old_password = demo_server.add_user(name="Rita Reset")
    open_login_from_demo(driver, demo_server)
    driver.find_element(By.CSS_SELECTOR, 'a[href^="/password/forgot?request="]').click()

    wait_for(driver, (By.NAME, "email"))
    screenshot(driver, f"password-forgot-{shot}")
    type_into(driver, "email", email)
    submit(driver)
    sent = wait_for(driver, (By.ID, "reset-sent"))
    assert email in sent.text
    screenshot(driver, f"password-forgot-sent-{shot}")

    mail = demo_server.mail_to(email, containing="Subject: Reset your Portico password")
    link = re.search(r"(http://\S+/password/reset\?token=\S+)", mail).group(1)
    driver.get(link)
    wait_for(driver, (By.NAME, "password_confirmation"))
    screenshot(driver, f"password-reset-{shot}")
    type_into(driver, "password", STRONG)
    type_into(driver, "password_confirmation", STRONG + "?")
    submit(driver)
    assert "not the same" in wait_for(driver, (By.ID, "password_confirmation-error")).text
    screenshot(driver, f"password-reset-error-{shot}")
    type_into(driver, "password", STRONG)
    type_into(driver, "password_confirmation", STRONG)
    submit(driver)
    wait_for(driver, (By.ID, "password-changed"))
    screenshot(driver, f"password-reset-done-{shot}")

    driver.find_element(By.CSS_SELECTOR, 'a[href^="/login?request="]').click()   # back to the app's sign-in
    wait_for(driver, (By.NAME, "email"))
    type_into(driver, "email", email)
    type_into(driver, "password", STRONG)
    submit(driver)
    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]')).click()
    wait_for(driver, (By.ID, "signed-in"))
    assert email in driver.find_element(By.ID, "profile").text

    driver.get(link)                                                            # the link worked once
    wait_for(driver, (By.ID, "reset-link-dead"))
    screenshot(driver, f"password-reset-dead-{shot}")


def test_too_many_wrong_passwords_are_refused_for_a_while(demo_server, sized_browser, screenshot):
    driver = sized_browser
    email, password = demo_server.add_user(name="Tom Throttle")
    driver.get(demo_server.url + "/login")
    for _ in range(5):
        wait_for(driver, (By.NAME, "email"))
        type_into(driver, "email", email)
        type_into(driver, "password", "not my password")
        submit(driver)
        wait_for(driver, (By.ID, "login-error"))
    type_into(driver, "password", password)
    submit(driver)
    error = wait_for(driver, (By.ID, "login-error"))
    # Past 5 failures the account waits a growing delay, 1 minute first (README, Throttling).
    assert "Too many attempts. Try again in 1 minute." in error.text
    screenshot(driver, f"login-throttled-{driver.portico_width}")


@pytest.fixture(params=[390, 1280], ids=["phone", "desktop"])
def chinese_browser(request):
    """A headless chromium that asks for Simplified Chinese (Accept-Language: zh-CN)."""
    width = request.param
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--lang=zh-CN", f"--window-size={width},900"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "zh-CN,zh"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 844 if width < 600 else 900, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.portico_width = width
    yield driver
    driver.quit()


def test_account_pages_in_simplified_chinese(demo_server, chinese_browser, screenshot):
    driver = chinese_browser
    shot = f"{driver.portico_width}-zh"
    driver.get(demo_server.url + "/signup")
    wait_for(driver, (By.NAME, "postal_code"))
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-Hans"
    assert "创建账户" in driver.page_source
    type_into(driver, "name", "李雷")
    type_into(driver, "email", "li.lei@browser.example")
    type_into(driver, "password", "短密码")
    submit(driver)
    assert "至少 15 个字符" in wait_for(driver, (By.ID, "password-error")).text
    screenshot(driver, f"signup-error-{shot}")

    driver.get(demo_server.url + "/password/forgot")
    wait_for(driver, (By.NAME, "email"))
    assert "重置密码" in driver.page_source
    screenshot(driver, f"password-forgot-{shot}")
