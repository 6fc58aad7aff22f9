"""The companion session in Your Account: a portico-agent signs in by the device grant (the
person approves in chromium), shows up as "Portico agent on <host>" with a Sign out button, in
English and in Simplified Chinese; pressing Sign out ends it, and the agent's next call to
/oauth/companion/authorize gets invalid_token. Screenshotted at phone and desktop width."""

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
WORDS = {
    "en": {"agent": "Portico agent on {host}", "sign_out": "Sign out", "done": "That device was signed out."},
    "zh-CN": {"agent": "{host} 上的 Portico agent", "sign_out": "退出", "done": "该设备已退出登录。"},
}


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def post_form(url, fields, bearer=None):
    """POSTs a form and returns (status, JSON body), for errors too."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if bearer:
        headers["Authorization"] = "Bearer " + bearer
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def platform(portico_binary):
    """A running provider with a companion client (client add --companion) and an app."""
    import portico_server
    instance = portico_server.Server(portico_binary, "portico-browser-companion-")
    added = instance.command("client", "add", "--name", "Portico agent", "--companion", "--json")
    assert added.returncode == 0, added.stderr
    instance.companion_id = json.loads(added.stdout)["client_id"]
    app = instance.command("client", "add", "--name", "Browser Notes", "--public", "--redirect-uri",
                           "http://127.0.0.1/callback", "--json")
    assert app.returncode == 0, app.stderr
    instance.app_id = json.loads(app.stdout)["client_id"]
    yield instance
    instance.stop()


def app_request(platform):
    return {"client_id": platform.app_id, "redirect_uri": "http://127.0.0.1:51234/callback",
            "scope": "openid profile", "state": "s", "code_challenge": "A" * 43, "code_challenge_method": "S256"}


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_your_account_shows_the_agent_and_signs_it_out(platform, sized_browser, screenshot, language):
    driver = sized_browser
    shot = f"{driver.portico_width}-{language}"
    words = WORDS[language]
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}})
    email = f"agent-{uuid.uuid4().hex[:10]}@browser.example"
    result = platform.command("user", "add", "--email", email, "--name", "Agent Person", "--password-stdin",
                              stdin="browser-password\n")
    assert result.returncode == 0, result.stderr

    # The agent starts its device sign-in; the person approves it in the browser.
    status, started = post_form(platform.url + "/oauth/device_authorization",
                                {"client_id": platform.companion_id, "scope": "openid profile companion"})
    assert status == 200, started
    driver.get(started["verification_uri_complete"])
    wait_for(driver, (By.NAME, "email")).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys("browser-password")
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]')).click()
    wait_for(driver, (By.ID, "device-result"))
    host = f"desk-{driver.portico_width}"
    status, tokens = post_form(platform.url + "/oauth/token",
                               {"grant_type": DEVICE_GRANT, "client_id": platform.companion_id,
                                "device_code": started["device_code"], "agent_host": host})
    assert status == 200, tokens
    status, ticket = post_form(platform.url + "/oauth/companion/authorize", app_request(platform),
                               bearer=tokens["access_token"])
    assert status == 200 and ticket["kind"] == "consent", ticket

    # Your Account lists it, in the browser's language, with its Sign out button.
    driver.get(platform.url + "/account")
    entry = wait_for(driver, (By.CSS_SELECTOR, "li.companion"))
    name = words["agent"].format(host=host)
    assert name in entry.text
    button = entry.find_element(By.CSS_SELECTOR, 'button[name="end_companion"]')
    assert button.text == words["sign_out"]
    screenshot(driver, f"account-companion-{shot}")
    button.click()
    wait_for(driver, (By.CSS_SELECTOR, ".notice"))
    assert words["done"] in driver.page_source
    assert name not in driver.page_source
    screenshot(driver, f"account-companion-signed-out-{shot}")

    # The agent hears it at its next request.
    status, refused = post_form(platform.url + "/oauth/companion/authorize", app_request(platform),
                                bearer=tokens["access_token"])
    assert (status, refused["error"]) == (401, "invalid_token")
    status, refreshed = post_form(platform.url + "/oauth/token",
                                  {"grant_type": "refresh_token", "client_id": platform.companion_id,
                                   "refresh_token": tokens["refresh_token"]})
    assert (status, refreshed["error"]) == (400, "invalid_grant")
