"""The whole "Login with Portico" experience in a real browser, through the demo app of
`portico serve --demo`: sign in, consent (Allow or Cancel), and the app's callback page; each
page screenshotted at phone (390 px) and desktop (1280 px) width."""

import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def sign_in(driver, email, password, shot, screenshot):
    """On the sign-in page: checks it names the app, fills the form the DESIGN describes, submits."""
    wait_for(driver, (By.NAME, "email"))
    assert "Portico Demo App" in driver.page_source
    assert driver.find_element(By.NAME, "remember_me").get_attribute("type") == "checkbox"
    screenshot(driver, f"login-{shot}")
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()


def consent(driver, decision, shot, screenshot):
    button = wait_for(driver, (By.CSS_SELECTOR, f'button[name="decision"][value="{decision}"]'))
    assert "Portico Demo App" in driver.page_source
    screenshot(driver, f"consent-{shot}")
    button.click()


def test_demo_sign_in_and_allow(demo_server, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    if driver.portico_width == 1280:
        email, password = demo_server.email, demo_server.password   # what the banner printed
    else:
        email, password = demo_server.add_user(name="Phone Person")
    driver.get(demo_server.demo_url)
    login = wait_for(driver, (By.ID, "login-with-portico"))
    screenshot(driver, f"demo-home-{shot}")
    login.click()

    sign_in(driver, email, password, shot, screenshot)
    consent(driver, "allow", shot, screenshot)

    heading = wait_for(driver, (By.ID, "signed-in"))
    assert driver.current_url.startswith(demo_server.url + "/demo/callback")
    profile = driver.find_element(By.ID, "profile").text
    assert email in profile
    assert "user_id" in profile
    claims = driver.find_element(By.ID, "claims").text
    assert demo_server.url in claims
    assert "nonce" in claims
    assert heading.text.startswith("Hello, ")
    screenshot(driver, f"demo-callback-{shot}")


def test_demo_cancel_gives_access_denied(demo_server, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    email, password = demo_server.add_user(name="Cancelling Person")
    driver.get(demo_server.demo_url)
    wait_for(driver, (By.ID, "login-with-portico")).click()
    sign_in(driver, email, password, f"{shot}-again", screenshot)
    consent(driver, "deny", f"{shot}-cancel", screenshot)

    heading = wait_for(driver, (By.ID, "demo-error"))
    assert heading.text == "Sign-in cancelled"
    assert "access_denied" in driver.page_source
    assert driver.current_url.startswith(demo_server.url + "/demo/callback")
    screenshot(driver, f"demo-cancelled-{shot}")


def test_unknown_client_shows_an_error_page_and_never_redirects(demo_server, sized_browser, screenshot):
    driver = sized_browser
    driver.get(demo_server.url + "/oauth/authorize?response_type=code&client_id=no-such-app"
               "&redirect_uri=https%3A%2F%2Fattacker.example%2Fcb&scope=openid&state=s"
               "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256")
    wait_for(driver, (By.TAG_NAME, "h1"))
    here = urllib.parse.urlparse(driver.current_url)
    assert f"{here.scheme}://{here.netloc}" == demo_server.url
    assert here.path == "/oauth/authorize"
    screenshot(driver, f"error-{driver.portico_width}")
