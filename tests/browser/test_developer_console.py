"""The developer console in a real browser: a developer signs in, accepts the terms, registers
a web app, sees its secret once (a reload shows none), makes a new secret, previews the app's
consent page, and deletes the app. Every page is checked with axe and screenshotted at phone
(390 px) and desktop (1280 px) width, in English and Simplified Chinese."""

import pytest
from selenium.webdriver.common.by import By

from test_accessibility import assert_accessible
from test_accounts import submit, type_into, wait_for


def secret(driver):
    found = driver.find_elements(By.ID, "client-secret")
    return found[0].text if found else None


def click_and_wait(driver, locator):
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(*locator).click()
    from selenium.webdriver.support.ui import WebDriverWait

    def gone(_driver):
        try:
            page.tag_name
            return False
        except Exception:
            return True

    WebDriverWait(driver, 20).until(gone)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_developer_console(demo_server, sized_browser, screenshot, language):
    driver = sized_browser
    shot = f"{language}-{driver.portico_width}"

    def check(page):
        assert_accessible(driver, page)
        screenshot(driver, f"developer-{page}-{shot}")

    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}})
    email, password = demo_server.add_user(name="Dev Eloper")
    driver.get(demo_server.url + "/developer")
    wait_for(driver, (By.NAME, "email"))
    type_into(driver, "email", email)
    type_into(driver, "password", password)
    submit(driver)

    # The terms: refused unticked, then accepted.
    wait_for(driver, (By.NAME, "accept_terms"))
    assert "/developer" in driver.current_url
    submit(driver)
    wait_for(driver, (By.ID, "accept_terms-error"))
    check("terms-error")
    driver.find_element(By.NAME, "accept_terms").click()
    submit(driver)
    wait_for(driver, (By.ID, "new-app"))
    check("list")

    # A new web app: an error first (http off loopback), the values kept, then the app.
    click_and_wait(driver, (By.ID, "new-app"))
    wait_for(driver, (By.NAME, "redirect_uri"))
    type_into(driver, "name", "Browser Console App")
    type_into(driver, "redirect_uri", "http://app.example/callback")
    submit(driver)
    wait_for(driver, (By.ID, "form-error"))
    assert "http on a host other than" in driver.page_source
    assert driver.find_element(By.NAME, "name").get_attribute("value") == "Browser Console App"
    check("new-error")
    type_into(driver, "redirect_uri", "https://app.example/callback")
    type_into(driver, "web_origin", "https://app.example")
    type_into(driver, "privacy_url", "https://app.example/privacy")
    submit(driver)
    wait_for(driver, (By.ID, "client-id"))
    first = secret(driver)
    assert first
    check("app-created")

    # Shown once: a reload has no secret.
    driver.refresh()
    wait_for(driver, (By.ID, "client-id"))
    assert secret(driver) is None
    assert first not in driver.page_source
    check("app")

    # A new secret, shown once too.
    click_and_wait(driver, (By.CSS_SELECTOR, 'button[name="action"][value="rotate_secret"]'))
    wait_for(driver, (By.ID, "client-id"))
    second = secret(driver)
    assert second and second != first
    app_url = driver.current_url.split("?")[0]

    # The consent page preview in both languages.
    driver.get(app_url + "/preview?lang=zh-CN")
    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))
    assert "Browser Console App" in driver.page_source
    assert "允许" in driver.page_source
    check("preview-zh")
    driver.get(app_url + "/preview?lang=en")
    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))
    assert "Allow" in driver.page_source
    check("preview-en")

    # The operator's list, once `portico user admin --on` made this person an operator.
    driver.get(demo_server.url + "/developer/operator")
    wait_for(driver, (By.TAG_NAME, "h1"))
    assert "all-apps" not in driver.page_source
    result = demo_server.command("user", "admin", email, "--on")
    assert result.returncode == 0, result.stderr
    driver.get(demo_server.url + "/developer/operator")
    wait_for(driver, (By.ID, "all-apps"))
    assert "Browser Console App" in driver.page_source and email in driver.page_source
    check("operator")

    # Delete, after the confirmation.
    driver.get(app_url)
    wait_for(driver, (By.ID, "client-id"))
    click_and_wait(driver, (By.CSS_SELECTOR, 'button[name="action"][value="delete"]'))
    wait_for(driver, (By.ID, "confirm-delete"))
    check("delete-confirm")
    click_and_wait(driver, (By.ID, "confirm-delete"))
    wait_for(driver, (By.ID, "new-app"))
    assert "done=deleted" in driver.current_url
    assert "Browser Console App" not in driver.page_source
    check("deleted")
