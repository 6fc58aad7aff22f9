"""The web SDK, /sdk/portico.js, in a real browser: "Login with Portico" on a third-party
page served from another origin (a Python http.server on `localhost`, while Portico is on
`127.0.0.1`), through a popup (forced, and chosen automatically when the browser has no FedCM)
or a full redirect, and signOut; the origin and state checks of the popup's message, a closed popup,
`access_denied`, the custom element in English and Chinese, the demo app's web page, and the
script's SRI hash in the README and its cache headers.

FedCM itself needs the provider's FedCM endpoints and is not exercised here."""

import base64
import hashlib
import http.server
import json
import pathlib
import re
import shutil
import socketserver
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

import portico_server

ROOT = pathlib.Path(__file__).resolve().parents[2]
MESSAGE = "portico:authorization-response"


def make_browser(*extra):
    """A headless chromium as conftest's, with `extra` command-line switches."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", *extra):
        options.add_argument(argument)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browser():
    """Chromium as Debian ships it: FedCM (`IdentityCredential`) present."""
    driver = make_browser()
    yield driver
    driver.quit()


@pytest.fixture
def no_fedcm_browser():
    """Chromium with its FedCM feature switched off: no `IdentityCredential`."""
    driver = make_browser("--disable-features=FedCm")
    yield driver
    driver.quit()


def readme_script_tag():
    """The README's `<script>` line for the SDK: (path, integrity)."""
    text = (ROOT / "README.md").read_text()
    match = re.search(r'<script src="https?://[^"/]+(/sdk/[^"]+/portico\.js)" integrity="(sha384-[^"]+)" '
                      r'crossorigin="anonymous"></script>', text)
    assert match, "README has no <script src=…/sdk/VERSION/portico.js integrity=… crossorigin> line"
    return match.group(1), match.group(2)


class Site:
    """A third-party app's pages on `http://localhost:PORT` (the app's origin); the same server
    answers as `http://127.0.0.1:PORT`, another origin."""

    def __init__(self, issuer):
        self.directory = tempfile.mkdtemp(prefix="portico-websdk-site-")
        handler = lambda *a, **k: Quiet(*a, directory=self.directory, **k)  # noqa: E731
        self.httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.origin = f"http://localhost:{self.port}"
        self.other_origin = f"http://127.0.0.1:{self.port}"
        self.redirect_uri = self.origin + "/callback.html"
        self.hold_uri = self.origin + "/hold.html"
        self.issuer = issuer
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def write(self, client_id):
        path, integrity = readme_script_tag()
        sdk = (f'<script src="{self.issuer}{path}" integrity="{integrity}" crossorigin="anonymous"></script>')
        self.client_id = client_id
        pages = {
            "app.html": f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Web app</title>
{sdk}</head><body><h1>A third-party web app</h1>
<p><portico-login-button id="button-en" client-id="{client_id}" scope="openid profile"
 redirect-uri="{self.redirect_uri}" lang="en" mode="popup"></portico-login-button></p>
<p><portico-login-button id="button-zh" client-id="{client_id}" scope="openid profile"
 redirect-uri="{self.redirect_uri}" lang="zh" mode="popup"></portico-login-button></p>
<script>
window.events = [];
document.addEventListener("portico-authorized", function (e) {{ window.events.push({{type: e.type, detail: e.detail}}); }});
document.addEventListener("portico-error", function (e) {{ window.events.push({{type: e.type, detail: e.detail}}); }});
window.outcome = null;
function run(options, redirectUri) {{
  window.outcome = null;
  var base = {{clientId: "{client_id}", scope: "openid profile", redirectUri: redirectUri || "{self.redirect_uri}"}};
  Portico.authorize(Object.assign(base, options)).then(
    function (r) {{ window.outcome = {{ok: r}}; }},
    function (e) {{ window.outcome = {{error: e.error, error_description: e.error_description, message: e.message}}; }});
}}
</script></body></html>""",
            "callback.html": f"""<!doctype html><html><head><meta charset="utf-8"><title>Callback</title>
{sdk}</head><body><p>Signing in…</p><script>
window.outcome = null;
if (!Portico.popupCallbackAnswered) {{
  Portico.handleRedirectCallback().then(
    function (r) {{ window.outcome = {{ok: r}}; }},
    function (e) {{ window.outcome = {{error: e.error, error_description: e.error_description}}; }});
}}
</script></body></html>""",
            # A redirect page without the SDK: the answer stays in its address for the test to read.
            "hold.html": "<!doctype html><title>Hold</title><p>held</p>",
            "signed-out.html": "<!doctype html><title>Signed out</title><p>signed out</p>",
            # Another origin's page that posts a forged answer to the opener.
            "forge.html": f"""<!doctype html><title>Forge</title><script>
var q = new URLSearchParams(location.search);
window.opener.postMessage({{type: "{MESSAGE}", state: q.get("state"), code: "forged-by-another-origin"}}, "*");
document.title = "forged";
</script>""",
        }
        for name, text in pages.items():
            pathlib.Path(self.directory, name).write_text(text)

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        shutil.rmtree(self.directory, ignore_errors=True)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


@pytest.fixture(scope="module")
def portico(portico_binary):
    instance = portico_server.Server(portico_binary, "portico-browser-websdk-")
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def site(portico):
    site = Site(portico.url)
    result = portico.command("client", "add", "--name", "Web SDK App", "--public", "--redirect-uri", site.redirect_uri,
                             "--redirect-uri", site.hold_uri, "--post-logout-redirect-uri",
                             site.origin + "/signed-out.html", "--json")
    assert result.returncode == 0, result.stderr
    site.write(json.loads(result.stdout)["client_id"])
    yield site
    site.stop()


def new_person(portico):
    email = f"web-{uuid.uuid4().hex[:10]}@browser.example"
    result = portico.command("user", "add", "--email", email, "--name", "Web Person", "--password-stdin",
                             stdin="web-sdk-password\n")
    assert result.returncode == 0, result.stderr
    return email, "web-sdk-password"


def wait(driver, timeout=20):
    # A popup that is still navigating answers "no such execution context" (a WebDriverException)
    # for a moment; seen once in a fresh-clone CI run right after switching to the popup. Keep
    # polling through it: what is waited for must still appear within the timeout.
    return WebDriverWait(driver, timeout, ignored_exceptions=[NoSuchElementException, WebDriverException])


def outcome(driver, timeout=20):
    return wait(driver, timeout).until(lambda d: d.execute_script("return window.outcome"))


def switch_to_popup(driver, opener, timeout=20):
    wait(driver, timeout).until(lambda d: len(d.window_handles) == 2)
    popup = next(handle for handle in driver.window_handles if handle != opener)
    driver.switch_to.window(popup)
    return popup


def sign_in_and_decide(driver, email, password, decision="allow", shot=None, screenshot=None):
    """Signs in on Portico's page in the current window and answers its consent page."""
    wait(driver).until(conditions.presence_of_element_located((By.NAME, "email")))
    if shot:
        screenshot(driver, f"websdk-popup-login-{shot}")
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    button = wait(driver).until(conditions.element_to_be_clickable(
        (By.CSS_SELECTOR, f'button[name="decision"][value="{decision}"]')))
    if shot:
        screenshot(driver, f"websdk-popup-consent-{shot}")
    button.click()


def redeem(issuer, client_id, result):
    """What the app's backend does: the code and verifier at the token endpoint."""
    fields = {"grant_type": "authorization_code", "code": result["code"], "code_verifier": result["codeVerifier"],
              "client_id": client_id}
    if result.get("redirectUri"):
        fields["redirect_uri"] = result["redirectUri"]
    request = urllib.request.Request(issuer + "/oauth/token", data=urllib.parse.urlencode(fields).encode(),
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=15) as response:
        body = json.loads(response.read())
    assert body["token_type"].lower() == "bearer" and body["access_token"] and body["id_token"]
    return body


def popup_sign_in(driver, site, portico, options, timeout=20):
    """Starts `Portico.authorize(options)` on the app page, signs in in the popup, and returns
    the promise's value."""
    email, password = new_person(portico)
    driver.get(site.origin + "/app.html")
    opener = driver.current_window_handle
    driver.execute_script("run(arguments[0])", options)
    switch_to_popup(driver, opener, timeout)
    sign_in_and_decide(driver, email, password)
    driver.switch_to.window(opener)
    return outcome(driver)


def test_forced_popup_gives_the_opener_a_code_that_redeems(browser, site, portico):
    result = popup_sign_in(browser, site, portico, {"mode": "popup"})
    assert "ok" in result, result
    assert set(result["ok"]) == {"code", "codeVerifier", "redirectUri"}
    assert result["ok"]["redirectUri"] == site.redirect_uri
    wait(browser).until(lambda d: len(d.window_handles) == 1)   # the popup closed itself
    redeem(portico.url, site.client_id, result["ok"])


def test_without_fedcm_the_automatic_choice_is_the_popup(no_fedcm_browser, site, portico):
    driver = no_fedcm_browser
    driver.get(site.origin + "/app.html")
    assert driver.execute_script("return typeof window.IdentityCredential") == "undefined"
    result = popup_sign_in(driver, site, portico, {})
    assert "ok" in result, result
    redeem(portico.url, site.client_id, result["ok"])


def test_a_message_from_another_origin_or_with_another_state_is_ignored(browser, site, portico):
    driver = browser
    email, password = new_person(portico)
    driver.get(site.origin + "/app.html")
    opener = driver.current_window_handle
    # The popup's answer lands on a page without the SDK, so the test holds the real state and code.
    driver.execute_script("run({mode: 'popup'}, arguments[0])", site.hold_uri)
    switch_to_popup(driver, opener)
    sign_in_and_decide(driver, email, password)
    wait(driver).until(lambda d: d.current_url.startswith(site.hold_uri))
    answer = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    state, code = answer["state"][0], answer["code"][0]

    popup = driver.current_window_handle

    def opener_ignored_it():
        driver.switch_to.window(opener)
        time.sleep(1.5)
        assert driver.execute_script("return window.outcome") is None
        driver.switch_to.window(popup)

    # Another origin, with the right state, posting to "*".
    # (Navigations by the page itself: one typed into the address bar would cut the opener off.)
    driver.execute_script("location.href = arguments[0]",
                          site.other_origin + "/forge.html?state=" + urllib.parse.quote(state))
    wait(driver).until(lambda d: d.title == "forged")
    opener_ignored_it()
    # The app's own origin, with the wrong state.
    driver.execute_script("location.href = arguments[0]", site.origin + "/hold.html")
    wait(driver).until(lambda d: d.title == "Hold")
    assert driver.execute_script("return window.opener !== null")
    driver.execute_script(
        "window.opener.postMessage({type: arguments[0], state: 'not-' + arguments[1], code: 'wrong-state'},"
        " location.origin)", MESSAGE, state)
    opener_ignored_it()

    # The real answer, from the app's origin with the state: accepted.
    driver.execute_script(
        "window.opener.postMessage({type: arguments[0], state: arguments[1], code: arguments[2]}, location.origin)",
        MESSAGE, state, code)
    driver.switch_to.window(opener)
    result = outcome(driver)
    assert result.get("ok", {}).get("code") == code, result
    redeem(portico.url, site.client_id, {**result["ok"], "redirectUri": site.hold_uri})


def test_closing_the_popup_rejects_and_the_button_says_so(browser, site, portico):
    driver = browser
    driver.get(site.origin + "/app.html")
    opener = driver.current_window_handle
    driver.execute_script("run({mode: 'popup'})")
    switch_to_popup(driver, opener)
    wait(driver).until(conditions.presence_of_element_located((By.NAME, "email")))
    driver.close()
    driver.switch_to.window(opener)
    result = outcome(driver)
    assert result["error"] == "popup_closed", result
    assert "closed" in result["error_description"]

    # The element turns the same into a portico-error event.
    button = driver.find_element(By.ID, "button-en").shadow_root.find_element(By.CSS_SELECTOR, "button")
    button.click()
    switch_to_popup(driver, opener)
    wait(driver).until(conditions.presence_of_element_located((By.NAME, "email")))
    driver.close()
    driver.switch_to.window(opener)
    events = wait(driver).until(lambda d: d.execute_script("return window.events.length && window.events"))
    assert events[0]["type"] == "portico-error"
    assert events[0]["detail"]["error"] == "popup_closed"


def test_access_denied_rejects_with_that_error(browser, site, portico):
    driver = browser
    email, password = new_person(portico)
    driver.get(site.origin + "/app.html")
    opener = driver.current_window_handle
    driver.execute_script("run({mode: 'popup'})")
    switch_to_popup(driver, opener)
    sign_in_and_decide(driver, email, password, decision="deny")
    driver.switch_to.window(opener)
    result = outcome(driver)
    assert result["error"] == "access_denied", result
    assert "ok" not in result


def test_redirect_mode_end_to_end_then_sign_out(browser, site, portico):
    driver = browser
    email, password = new_person(portico)
    driver.get(site.origin + "/app.html")
    driver.execute_script("run({mode: 'redirect'})")
    sign_in_and_decide(driver, email, password)
    wait(driver).until(lambda d: d.current_url.startswith(site.redirect_uri))
    result = outcome(driver)
    assert "ok" in result, result
    assert result["ok"]["redirectUri"] == site.redirect_uri
    assert "code=" not in driver.current_url   # the SDK took the code out of the address bar
    tokens = redeem(portico.url, site.client_id, result["ok"])
    # The same state cannot be used twice.
    driver.execute_script("window.outcome = null; Portico.handleRedirectCallback(arguments[0]).catch("
                          "function (e) { window.outcome = {error: e.error}; })",
                          f"{site.redirect_uri}?code=x&state=used")
    assert outcome(driver)["error"] == "invalid_state"

    # signOut() forgets what the SDK kept and stays; with an ID token, it ends the session at Portico.
    driver.execute_script("sessionStorage.setItem('portico.sdk.redirect.left-over', '{}'); Portico.signOut()")
    assert driver.execute_script("return sessionStorage.getItem('portico.sdk.redirect.left-over')") is None
    assert driver.current_url.startswith(site.redirect_uri)
    driver.execute_script("Portico.signOut({idTokenHint: arguments[0], postLogoutRedirectUri: arguments[1], "
                          "state: 'bye'})", tokens["id_token"], site.origin + "/signed-out.html")
    wait(driver).until(lambda d: d.current_url == site.origin + "/signed-out.html?state=bye")
    driver.get(portico.url + "/account")
    wait(driver).until(conditions.presence_of_element_located((By.NAME, "email")))   # signed out


@pytest.mark.parametrize("language,label,shot", [("en", "Login with Portico", "en"), ("zh", "使用 Portico 登录", "zh")])
def test_the_button_in_both_languages(browser, site, portico, screenshot, language, label, shot):
    driver = browser
    email, password = new_person(portico)
    driver.get(site.origin + "/app.html")
    opener = driver.current_window_handle
    element = driver.find_element(By.ID, f"button-{language}")
    button = element.shadow_root.find_element(By.CSS_SELECTOR, "button")
    assert button.text.endswith(label)   # after the "P" mark, which is aria-hidden
    assert button.get_attribute("type") == "button"
    assert button.accessible_name == label
    # Reachable with the keyboard: the first tab stop on the page is the English button.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    if language == "zh":
        driver.switch_to.active_element.send_keys(Keys.TAB)
    focused = driver.execute_script("var e = document.activeElement; return [e.id, e.shadowRoot.activeElement.tagName]")
    assert focused == [f"button-{language}", "BUTTON"]
    screenshot(driver, f"websdk-app-{shot}")
    driver.switch_to.active_element.send_keys(Keys.ENTER)

    switch_to_popup(driver, opener)
    wait(driver).until(conditions.presence_of_element_located((By.NAME, "email")))
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == ("zh-Hans" if language == "zh" else "en")
    assert "Web SDK App" in driver.page_source
    sign_in_and_decide(driver, email, password, shot=shot, screenshot=screenshot)
    driver.switch_to.window(opener)
    events = wait(driver).until(lambda d: d.execute_script("return window.events.length && window.events"))
    assert events[0]["type"] == "portico-authorized", events
    assert set(events[0]["detail"]) == {"code", "codeVerifier", "redirectUri"}
    redeem(portico.url, site.client_id, events[0]["detail"])


def test_demo_web_page_signs_in_and_shows_the_id_token(demo_server, no_fedcm_browser, screenshot):
    driver = no_fedcm_browser
    email, password = demo_server.add_user(name="Web Demo Person")
    driver.get(demo_server.url + "/demo/web")
    opener = driver.current_window_handle
    element = wait(driver).until(conditions.presence_of_element_located((By.ID, "web-login")))
    button = wait(driver).until(lambda d: element.shadow_root.find_element(By.CSS_SELECTOR, "button"))
    screenshot(driver, "websdk-demo-web")
    button.click()
    switch_to_popup(driver, opener)
    sign_in_and_decide(driver, email, password)
    driver.switch_to.window(opener)
    heading = wait(driver).until(conditions.presence_of_element_located((By.ID, "signed-in")))
    assert driver.current_url == demo_server.url + "/demo/web/redeem"
    assert heading.text == "Hello, Web Demo Person!"
    claims = driver.find_element(By.ID, "claims").text
    assert demo_server.url in claims and "nonce" in claims
    assert email in driver.find_element(By.ID, "profile").text
    screenshot(driver, "websdk-demo-signed-in")



def test_demo_web_page_signs_in_by_fedcm_where_the_browser_has_it(demo_server, browser):
    """The demo's client lists the issuer's origin as its web origin, so in a browser with
    FedCM and a person signed in at Portico the button's automatic choice is the browser's
    own dialog (then Portico's consent for the demo's extra scopes), not Portico's window."""
    driver = browser
    email, password = demo_server.add_user(name="FedCM Demo Person")
    driver.get(demo_server.url + "/login")
    wait(driver).until(conditions.presence_of_element_located((By.NAME, "email"))).send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "main form [type=submit]").click()
    wait(driver).until(lambda d: "/login" not in d.current_url)
    driver.get(demo_server.url + "/demo/web")
    element = wait(driver).until(conditions.presence_of_element_located((By.ID, "web-login")))
    wait(driver).until(lambda d: element.shadow_root.find_element(By.CSS_SELECTOR, "button")).click()
    dialog = driver.fedcm_dialog(timeout=30)
    assert dialog.type == "AccountChooser"
    assert [account["email"] for account in driver.fedcm.account_list] == [email]
    assert len(driver.window_handles) == 1
    opener = driver.current_window_handle
    driver.fedcm.select_account(0)
    # The demo asks for more than the browser's disclosure covers: Portico's consent, in the
    # popup the browser opens for continue_on, once.
    switch_to_popup(driver, opener, timeout=45)
    wait(driver).until(conditions.element_to_be_clickable((By.CSS_SELECTOR, "button[value=allow]"))).click()
    wait(driver, 45).until(lambda d: len(d.window_handles) == 1)
    driver.switch_to.window(opener)
    heading = wait(driver, 60).until(conditions.presence_of_element_located((By.ID, "signed-in")))
    assert heading.text == "Hello, FedCM Demo Person!"

def fetch(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_readme_sri_hash_is_the_served_files(server):
    path, integrity = readme_script_tag()
    status, _, body = fetch(server + path)
    assert status == 200, f"the README's {path} is not served"
    assert integrity == "sha384-" + base64.b64encode(hashlib.sha384(body).digest()).decode()
    _, _, latest = fetch(server + "/sdk/portico.js")
    assert latest == body, "the README pins an older version than /sdk/portico.js"


def test_cache_headers_of_the_versioned_and_the_current_url(server):
    path, _ = readme_script_tag()
    status, headers, _ = fetch(server + path)
    assert status == 200
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert headers["Content-Type"].startswith("text/javascript")
    assert headers["X-Content-Type-Options"] == "nosniff"
    etag = headers["ETag"]
    assert etag
    status, headers, body = fetch(server + path, {"If-None-Match": etag})
    assert status == 304 and body == b""

    status, headers, _ = fetch(server + "/sdk/portico.js")
    assert status == 200
    assert "immutable" not in headers["Cache-Control"]
    assert re.fullmatch(r"public, max-age=\d{1,4}", headers["Cache-Control"])
    assert headers["ETag"] == etag and headers["Access-Control-Allow-Origin"] == "*"
    assert fetch(server + "/sdk/0.0.1/portico.js")[0] == 404


def test_fedcm_that_fails_for_want_of_the_provider_falls_back_to_the_popup(browser, site, portico):
    # Chromium has FedCM; an issuer without a working FedCM setup for this app (no
    # /fedcm/config.json, or no web origin, or nobody signed in there) fails it, and the popup takes over.
    driver = browser
    driver.get(site.origin + "/app.html")
    assert driver.execute_script("return typeof window.IdentityCredential") == "function"
    # Chromium delays FedCM's rejection by several seconds (about 12 here), so as not to tell the
    # page why it failed.
    result = popup_sign_in(driver, site, portico, {}, timeout=60)
    assert "ok" in result, result
    redeem(portico.url, site.client_id, result["ok"])
