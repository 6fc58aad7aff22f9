"""Changing the password from Your Account in a real browser: the form reached from Your
Account by keyboard, a wrong current password, the change, and the notice mail; the new
pages screenshotted at phone (390 px) and desktop (1280 px) width, in English and Simplified
Chinese."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_accounts import STRONG, submit, type_into, wait_for


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_change_password_from_your_account(demo_server, sized_browser, screenshot, language):
    driver = sized_browser
    shot = f"{language}-{driver.portico_width}"
    email, old_password = demo_server.add_user(name="Chang Password")
    suffix = "" if language == "en" else "?ui_locales=zh-CN"
    driver.get(demo_server.url + "/account" + suffix)
    wait_for(driver, (By.NAME, "email"))
    type_into(driver, "email", email)
    type_into(driver, "password", old_password)
    submit(driver)
    link = wait_for(driver, (By.ID, "change-password"))
    # Keyboard: the link is focusable and Enter follows it.
    link.send_keys(Keys.ENTER)
    wait_for(driver, (By.NAME, "current_password"))
    if language != "en":
        driver.get(demo_server.url + "/account/password?ui_locales=zh-CN")
        wait_for(driver, (By.NAME, "current_password"))
        assert "当前密码" in driver.page_source
    screenshot(driver, f"password-change-{shot}")

    type_into(driver, "current_password", "not the password at all")
    type_into(driver, "password", STRONG)
    type_into(driver, "password_confirmation", STRONG)
    submit(driver)
    wait_for(driver, (By.ID, "current_password-error"))
    screenshot(driver, f"password-change-error-{shot}")

    type_into(driver, "current_password", old_password)
    type_into(driver, "password", STRONG)
    type_into(driver, "password_confirmation", STRONG)
    driver.find_element(By.NAME, "password_confirmation").send_keys(Keys.ENTER)   # submit by keyboard
    wait_for(driver, (By.CSS_SELECTOR, ".notice[role=status]"))
    assert "/account?done=password_changed" in driver.current_url
    if language != "en":
        assert "您的密码已更改" in driver.page_source
    screenshot(driver, f"password-change-done-{shot}")

    mail = demo_server.mail_to(email)
    assert "password was changed" in mail or "密码已更改" in mail
