"""A sign-in with `device_sso` in a real browser: the consent page tells the person that the
app may keep them signed in across the company's apps on this device, in English and in
Simplified Chinese, and the app gets its code; screenshotted at phone and desktop width."""

import base64
import hashlib
import json
import secrets
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

REDIRECT = "http://127.0.0.1:9/native-sso/callback"
WORDS = {
    "en": "Keep you signed in across this company's apps on this device",
    "zh-CN": "在此设备上让您在该公司的各个应用中保持登录",
}


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


@pytest.fixture(scope="module")
def vendor_app(demo_server):
    result = demo_server.command(
        "client", "add", "--name", "Vendor Mail", "--public", "--redirect-uri", REDIRECT, "--sso-group", "vendor",
        "--grant", "authorization_code", "--grant", "refresh_token", "--grant",
        "urn:ietf:params:oauth:grant-type:token-exchange", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["client_id"]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_device_sso_consent_says_the_app_keeps_you_signed_in(demo_server, vendor_app, sized_browser, screenshot,
                                                            language):
    driver = sized_browser
    email, password = demo_server.add_user()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": vendor_app, "redirect_uri": REDIRECT,
        "scope": "openid profile device_sso", "state": "s1", "code_challenge": challenge,
        "code_challenge_method": "S256", "ui_locales": language,
    })
    driver.get(demo_server.url + "/oauth/authorize?" + query)
    wait_for(driver, (By.NAME, "email")).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "main form [type=submit]").click()
    allow = wait_for(driver, (By.CSS_SELECTOR, "button[name=decision][value=allow]"))
    assert "Vendor Mail" in driver.page_source
    assert WORDS[language] in driver.page_source
    screenshot(driver, f"consent-device-sso-{driver.portico_width}-{language}")
    allow.click()
    WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(REDIRECT))
    query = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    assert query["state"] == ["s1"] and query["code"]
