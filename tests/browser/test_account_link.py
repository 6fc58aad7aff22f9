"""The account link in a real browser: the `account_link` consent page says that the person
links their account at the host and names the host's mini-programs; after the host links
the account, Your Account lists it under "Linked accounts" with its mini-programs, and Unlink
asks first, then unbinds. English and Simplified Chinese, screenshotted at 390 and 1280 px, each
page checked with axe-core's WCAG 2.1 A/AA rules."""

import base64
import hashlib
import json
import secrets
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

from test_accessibility import assert_accessible

REDIRECT = "http://127.0.0.1:9/host/callback"
TEXT = {
    "en": {
        "consent": "Link your account at Harbour Mall to your Portico account, and let its mini-programs use your "
                   "Portico sign-in",
        "heading": "Linked accounts",
        "since": "Linked since",
        "confirm": "Unlink your account at Harbour Mall?",
        "done": "The account was unlinked.",
    },
    "zh-CN": {
        "consent": "将您在 Harbour Mall 的账户与您的 Portico 账户关联，并允许其小程序使用您的 Portico 登录状态",
        "heading": "已关联的账户",
        "since": "关联于",
        "confirm": "解除您在 Harbour Mall 的账户关联？",
        "done": "已解除账户关联",
    },
}
MINI_PROGRAMS = ["Ticket Booth", "Noodle Bar"]


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def post(url, form, client_id, secret, method="POST"):
    """A form request with HTTP Basic client authentication; (status, JSON or None)."""
    credentials = base64.b64encode(
        f"{urllib.parse.quote(client_id, safe='')}:{urllib.parse.quote(secret, safe='')}".encode()).decode()
    request = urllib.request.Request(
        url, data=urllib.parse.urlencode(form).encode(), method=method,
        headers={"Authorization": f"Basic {credentials}", "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
            return response.status, json.loads(body) if body else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@pytest.fixture(scope="module")
def host(demo_server):
    """A confidential host app with two mini-programs: (client_id, secret)."""
    result = demo_server.command(
        "client", "add", "--name", "Harbour Mall", "--redirect-uri", REDIRECT, "--grant", "authorization_code",
        "--grant", "refresh_token", "--grant", "urn:ietf:params:oauth:grant-type:token-exchange", "--json")
    assert result.returncode == 0, result.stderr
    registered = json.loads(result.stdout)
    for name in MINI_PROGRAMS:
        added = demo_server.command("client", "add", "--name", name, "--mini-program-of", registered["client_id"])
        assert added.returncode == 0, added.stderr
    return registered["client_id"], registered["client_secret"]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_consent_linked_accounts_and_unlink(demo_server, host, sized_browser, screenshot, language):
    driver = sized_browser
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": language}})
    shot = f"{driver.portico_width}-{language}"
    text = TEXT[language]
    client_id, secret = host
    email, password = demo_server.add_user()

    # The consent page names what linking means and the mini-programs.
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
        "scope": "openid profile account_link", "state": "s1", "code_challenge": challenge,
        "code_challenge_method": "S256",
    })
    driver.get(demo_server.url + "/oauth/authorize?" + query)
    wait_for(driver, (By.NAME, "email")).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "main form [type=submit]").click()
    allow = wait_for(driver, (By.CSS_SELECTOR, "button[name=decision][value=allow]"))
    permissions = driver.find_element(By.CSS_SELECTOR, "ul.permissions").text
    assert text["consent"] in permissions
    for name in MINI_PROGRAMS:
        assert name in permissions
    assert_accessible(driver, "account_link consent")
    screenshot(driver, f"consent-account-link-{shot}")
    allow.click()
    WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(REDIRECT))
    code = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)["code"][0]

    # The host's backend redeems the code and links its user.
    status, tokens = post(demo_server.url + "/oauth/token", {
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier,
    }, client_id, secret)
    assert status == 200, tokens
    status, link = post(demo_server.url + "/oauth/account-links",
                        {"access_token": tokens["access_token"], "host_user_id": "mc-" + secrets.token_hex(4)},
                        client_id, secret)
    assert status == 201, link

    # Your Account lists it with the mini-programs.
    driver.get(demo_server.url + "/account")
    section = wait_for(driver, (By.ID, "linked-accounts"))
    assert section.text == text["heading"]
    entry = driver.find_element(By.CSS_SELECTOR, f'li.linked-account[data-link-id="{link["link_id"]}"]')
    assert "Harbour Mall" in entry.text and text["since"] in entry.text
    for name in MINI_PROGRAMS:
        assert name in entry.text
    driver.execute_script("arguments[0].scrollIntoView()", section)
    assert_accessible(driver, "Your Account with a linked account")
    screenshot(driver, f"account-linked-{shot}")

    # Unlink asks first; nothing is unbound until the person confirms.
    entry.find_element(By.CSS_SELECTOR, "a.button").click()
    title = wait_for(driver, (By.ID, "unlink-title"))
    assert title.text == text["confirm"]
    assert_accessible(driver, "unlink confirmation")
    screenshot(driver, f"account-unlink-confirm-{shot}")
    driver.find_element(By.CSS_SELECTOR, "button[name=unlink]").click()
    notice = wait_for(driver, (By.CSS_SELECTOR, ".notice"))
    assert text["done"] in notice.text
    assert not driver.find_elements(By.ID, "linked-accounts")
    screenshot(driver, f"account-unlinked-{shot}")

    # The host's token no longer works: the unbind revoked the grant.
    request = urllib.request.Request(demo_server.url + "/oauth/userinfo",
                                     headers={"Authorization": "Bearer " + tokens["access_token"]})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401
