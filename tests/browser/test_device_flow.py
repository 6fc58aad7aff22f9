"""Device login ("Login with Portico for TVs") end to end: a TV app starts an RFC 8628
authorization over HTTP, a person opens verification_uri_complete in chromium, signs in,
allows, sees "connected", and the TV's poll of the token endpoint gets tokens. Every device
page is screenshotted at phone (390 px) and desktop (1280 px) width."""

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def post_form(url, fields):
    """POSTs a form and returns (status, JSON body), for errors too."""
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def tv(portico_binary):
    """A running provider with a TV app registered for the device grant, and a person."""
    import portico_server
    instance = portico_server.Server(portico_binary, "portico-browser-device-")
    added = instance.command("client", "add", "--name", "Living Room TV", "--public", "--grant", "device_code",
                             "--grant", "refresh_token", "--scope", "openid", "--scope", "profile", "--json")
    assert added.returncode == 0, added.stderr
    instance.client_id = json.loads(added.stdout)["client_id"]
    yield instance
    instance.stop()


def add_person(tv, name):
    email = f"tv-{uuid.uuid4().hex[:10]}@browser.example"
    result = tv.command("user", "add", "--email", email, "--name", name, "--password-stdin",
                        stdin="browser-password\n")
    assert result.returncode == 0, result.stderr
    return email, "browser-password"


def start(tv):
    status, body = post_form(tv.url + "/oauth/device_authorization",
                             {"client_id": tv.client_id, "scope": "openid profile"})
    assert status == 200, body
    return body


def poll(tv, device_code):
    return post_form(tv.url + "/oauth/token",
                     {"grant_type": DEVICE_GRANT, "client_id": tv.client_id, "device_code": device_code})


def test_device_login_end_to_end(tv, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    email, password = add_person(tv, "Couch Person")
    started = start(tv)
    assert started["verification_uri"] == tv.url + "/device"
    status, body = poll(tv, started["device_code"])
    assert (status, body["error"]) == (400, "authorization_pending")

    # The person opens the link the TV shows (or its QR code) on their phone or laptop.
    driver.get(started["verification_uri_complete"])
    wait_for(driver, (By.NAME, "email"))
    assert "Living Room TV" in driver.page_source
    screenshot(driver, f"device-login-{shot}")
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()

    allow = wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]'))
    page = driver.page_source
    assert "Living Room TV" in page and "on your TV or device" in page
    assert started["user_code"] in driver.find_element(By.ID, "device-code").text
    assert "Couch Person" in page
    screenshot(driver, f"device-consent-{shot}")
    allow.click()

    result = wait_for(driver, (By.ID, "device-result"))
    assert "Your device is connected" in driver.page_source
    assert "Living Room TV" in result.text
    screenshot(driver, f"device-connected-{shot}")

    # Back on the TV: the next poll gets the tokens, and only once.
    status, tokens = poll(tv, started["device_code"])
    assert status == 200, tokens
    assert tokens["token_type"] == "Bearer"
    assert tokens["access_token"] and tokens["refresh_token"] and tokens["id_token"]
    request = urllib.request.Request(tv.url + "/oauth/userinfo",
                                     headers={"Authorization": "Bearer " + tokens["access_token"]})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.loads(response.read())["email"] == email
    status, again = poll(tv, started["device_code"])
    assert (status, again["error"]) == (400, "invalid_grant")


def test_typing_the_code_and_cancelling(tv, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    email, password = add_person(tv, "Careful Person")

    # Sign in first (as if already signed in), then type the code shown on the TV.
    started = start(tv)
    driver.get(tv.url + "/device")
    field = wait_for(driver, (By.NAME, "user_code"))
    assert driver.find_element(By.CSS_SELECTOR, "label[for=user_code]").text == "Code"
    screenshot(driver, f"device-code-{shot}")
    field.send_keys("nope-nope")
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    wait_for(driver, (By.ID, "code-error"))
    assert "That code didn" in driver.page_source
    screenshot(driver, f"device-code-wrong-{shot}")

    driver.get(tv.url + "/device?ui_locales=zh-CN")
    wait_for(driver, (By.NAME, "user_code"))
    assert "连接电视或设备" in driver.page_source
    screenshot(driver, f"device-code-zh-{shot}")
    driver.get(tv.url + "/device")
    field = wait_for(driver, (By.NAME, "user_code"))
    field.clear()
    field.send_keys(started["user_code"].lower().replace("-", ""))
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    wait_for(driver, (By.NAME, "email")).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()

    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="deny"]')).click()
    wait_for(driver, (By.ID, "device-result"))
    assert "The device was not connected" in driver.page_source
    screenshot(driver, f"device-denied-{shot}")
    status, body = poll(tv, started["device_code"])
    assert (status, body["error"]) == (400, "access_denied")


def test_a_companion_asking_through_the_device_flow_is_shown_a_warning(tv, sized_browser, screenshot):
    """`portico-agent login --device` asks for scope `companion` through the device flow; the
    consent page says plainly what allowing it hands over (issue 33), in both languages."""
    driver = sized_browser
    added = tv.command("client", "add", "--companion", "--name", "Portico agent", "--json")
    assert added.returncode == 0, added.stderr
    companion_id = json.loads(added.stdout)["client_id"]
    email, password = add_person(tv, "Agent Person")
    for language in ("en", "zh-CN"):
        status, started = post_form(tv.url + "/oauth/device_authorization",
                                    {"client_id": companion_id, "scope": "openid companion"})
        assert status == 200, started
        driver.delete_all_cookies()
        driver.get(started["verification_uri_complete"] + f"&ui_locales={language}")
        wait_for(driver, (By.NAME, "email")).send_keys(email)
        driver.find_element(By.NAME, "password").send_keys(password)
        driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
        warning = wait_for(driver, (By.ID, "companion-warning"))
        assert warning.is_displayed() and "Portico agent" in warning.text
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow} px"
        screenshot(driver, f"device-companion-warning-{language}-{driver.portico_width}")
