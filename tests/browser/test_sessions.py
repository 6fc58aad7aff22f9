"""Keeping people signed in, signing out, and Your Account in a real browser, through the demo
app of `portico serve --demo`; each new page screenshotted at 390 and 1280 px."""

import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def restart_browser(driver):
    """What closing and reopening the browser does to cookies: those without an expiry (the
    session cookie of a normal sign-in, the CSRF secret, the "Continue as" mark) are gone,
    those with one ("Keep me signed in") stay."""
    kept = [cookie for cookie in driver.get_cookies() if "expiry" in cookie]
    driver.delete_all_cookies()
    for cookie in kept:
        driver.add_cookie(cookie)


def demo_sign_in(demo_server, driver, email, password, remember=False):
    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico")).click()
    wait_for(driver, (By.NAME, "email")).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    if remember:
        driver.find_element(By.ID, "remember_me").click()
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    allow = (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]')
    WebDriverWait(driver, 20).until(conditions.any_of(
        conditions.presence_of_element_located(allow), conditions.presence_of_element_located((By.ID, "signed-in"))))
    if driver.find_elements(*allow):   # consent is asked only the first time
        driver.find_element(*allow).click()
    wait_for(driver, (By.ID, "signed-in"))


def test_keep_me_signed_in_then_continue_as(demo_server, sized_browser, screenshot):
    driver = sized_browser
    width = driver.portico_width
    email, password = demo_server.add_user(name="Kept Person")
    demo_sign_in(demo_server, driver, email, password, remember=True)
    session = driver.get_cookie("portico_session")
    assert session is not None and "expiry" in session

    restart_browser(driver)
    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico")).click()
    heading = wait_for(driver, (By.ID, "continue-as"))
    assert heading.text == "Continue as Kept Person"
    assert email in driver.page_source
    assert driver.find_element(By.ID, "not-you").is_displayed()
    screenshot(driver, f"continue-as-{width}")
    driver.find_element(By.CSS_SELECTOR, 'button[name="decision"][value="continue"]').click()
    assert wait_for(driver, (By.ID, "signed-in")).text == "Hello, Kept Person!"


def test_not_you_shows_the_sign_in_page(demo_server, sized_browser, screenshot):
    driver = sized_browser
    email, password = demo_server.add_user(name="Shared Device")
    demo_sign_in(demo_server, driver, email, password, remember=True)
    restart_browser(driver)
    # The app asks in Simplified Chinese (ui_locales), so "Continue as" answers in it.
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": "portico-demo", "redirect_uri": demo_server.url + "/demo/callback",
        "scope": "openid profile", "state": "s", "ui_locales": "zh-CN",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"})
    driver.get(demo_server.url + "/oauth/authorize?" + query)
    assert wait_for(driver, (By.ID, "continue-as")).text == "以 Shared Device 的身份继续"
    screenshot(driver, f"continue-as-zh-{driver.portico_width}")
    wait_for(driver, (By.ID, "not-you")).click()
    wait_for(driver, (By.NAME, "email"))
    assert urllib.parse.urlparse(driver.current_url).path == "/login"
    assert "Portico Demo App" in driver.page_source
    assert driver.get_cookie("portico_session") is None


def test_your_account_removal(demo_server, sized_browser, screenshot):
    driver = sized_browser
    width = driver.portico_width
    email, password = demo_server.add_user(name="Account Person")
    demo_sign_in(demo_server, driver, email, password)
    driver.get(demo_server.url + "/account")
    remove = wait_for(driver, (By.CSS_SELECTOR, 'button[name="revoke"][value="portico-demo"]'))
    assert "Portico Demo App" in driver.page_source
    assert "See the postal code of your address" in driver.page_source
    assert driver.find_element(By.ID, "this-device").is_displayed()
    screenshot(driver, f"account-{width}")
    driver.get(demo_server.url + "/account?ui_locales=zh-Hans")
    assert wait_for(driver, (By.ID, "apps")).text == "您已允许的应用"
    screenshot(driver, f"account-zh-{width}")
    driver.get(demo_server.url + "/account")
    remove = wait_for(driver, (By.CSS_SELECTOR, 'button[name="revoke"][value="portico-demo"]'))
    remove.click()
    notice = wait_for(driver, (By.CSS_SELECTOR, ".notice"))
    assert "removed" in notice.text
    assert not driver.find_elements(By.CSS_SELECTOR, 'button[name="revoke"]')
    screenshot(driver, f"account-removed-{width}")

    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico")).click()
    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))   # asked again


def test_logout_from_the_app_and_the_confirmation(demo_server, sized_browser, screenshot):
    driver = sized_browser
    width = driver.portico_width
    email, password = demo_server.add_user(name="Leaving Person")
    demo_sign_in(demo_server, driver, email, password, remember=True)
    screenshot(driver, f"demo-callback-signout-{width}")
    driver.find_element(By.ID, "demo-sign-out").click()
    wait_for(driver, (By.ID, "demo-signed-out"))
    assert "is the one this sign-out sent" in driver.find_element(By.ID, "logout-state").text
    assert driver.get_cookie("portico_session") is None
    screenshot(driver, f"demo-signed-out-{width}")

    # Without an ID token the person is asked first.
    demo_sign_in(demo_server, driver, email, password)
    query = urllib.parse.urlencode({
        "client_id": "portico-demo", "post_logout_redirect_uri": demo_server.url + "/demo/signed-out",
        "state": "from-the-test"})
    driver.get(demo_server.url + "/oauth/logout?" + query + "&ui_locales=zh-CN")
    assert wait_for(driver, (By.ID, "logout-title")).text == "退出 Portico？"
    screenshot(driver, f"logout-confirm-zh-{width}")
    driver.get(demo_server.url + "/oauth/logout?" + query)
    assert wait_for(driver, (By.ID, "logout-title")).text == "Sign out of Portico?"
    screenshot(driver, f"logout-confirm-{width}")
    driver.find_element(By.CSS_SELECTOR, 'button[name="decision"][value="logout"]').click()
    wait_for(driver, (By.ID, "demo-signed-out"))
    assert "state=from-the-test" in driver.current_url
    assert driver.get_cookie("portico_session") is None

    driver.get(demo_server.url + "/oauth/logout")
    wait_for(driver, (By.ID, "signed-out"))
    screenshot(driver, f"signed-out-{width}")
    driver.get(demo_server.url + "/oauth/logout?ui_locales=zh-Hans")
    assert wait_for(driver, (By.ID, "signed-out")).text == "您已退出"
    screenshot(driver, f"signed-out-zh-{width}")
    driver.get(demo_server.url + "/account")
    wait_for(driver, (By.NAME, "email"))   # signed out: Your Account asks for a sign-in
