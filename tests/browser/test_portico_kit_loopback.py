"""PorticoKit's loopback sign-in (RFC 8252) with a real headless chromium as the browser:
`portico-demo login` runs with $BROWSER set to a tiny script that hands the authorization URL
to this test, which opens it in chromium, signs in, allows, and sees the SDK's own
"you can close this tab" page served by the app's loopback listener."""

import json
import os
import pathlib
import subprocess
import tempfile
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait


def demo_binary(portico_binary):
    path = pathlib.Path(portico_binary).parent / "portico-demo"
    if not os.access(path, os.X_OK):
        pytest.fail(f"no portico-demo next to portico ({path}); run `swift build` first")
    return str(path)


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def test_portico_demo_signs_in_through_chromium(demo_server, portico_binary, sized_browser, screenshot):
    driver = sized_browser
    shot = f"{driver.portico_width}"
    added = demo_server.command("client", "add", "--name", "CLI demo", "--public",
                                "--redirect-uri", "http://127.0.0.1/callback", "--json")
    assert added.returncode == 0, added.stderr
    client_id = json.loads(added.stdout)["client_id"]
    email, password = demo_server.add_user(name="Kit Person")

    with tempfile.TemporaryDirectory(prefix="portico-kit-browser-") as workdir:
        handoff = pathlib.Path(workdir) / "url"
        opener = pathlib.Path(workdir) / "browser"
        opener.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{handoff}.tmp" && mv "{handoff}.tmp" "{handoff}"\n')
        opener.chmod(0o700)
        environment = {**os.environ, "PORTICO_ISSUER": demo_server.url, "PORTICO_CLIENT_ID": client_id,
                       "XDG_CONFIG_HOME": str(pathlib.Path(workdir) / "config"), "BROWSER": str(opener)}
        demo = demo_binary(portico_binary)
        login = subprocess.Popen([demo, "login"], env=environment, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while not handoff.exists():
                assert login.poll() is None, login.stderr.read()
                assert time.monotonic() < deadline, "portico-demo never opened the browser"
                time.sleep(0.1)
            url = handoff.read_text()
            assert url.startswith(demo_server.url + "/oauth/authorize?")
            # Portico advertises PAR: the SDK pushed its request, the URL carries only a reference.
            assert "request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A" in url
            assert "redirect_uri" not in url and "code_challenge" not in url

            driver.get(url)
            wait_for(driver, (By.NAME, "email")).send_keys(email)
            driver.find_element(By.NAME, "password").send_keys(password)
            driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
            wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]')).click()

            # The consent page has an h1 too: wait until the browser is at the app's loopback
            # listener, or the heading read could be the consent page's, gone stale meanwhile.
            # The provider is on 127.0.0.1 too: the app's listener is the one at /callback.
            WebDriverWait(driver, 20).until(
                lambda d: "/callback?" in d.current_url and not d.current_url.startswith(demo_server.url))
            heading = wait_for(driver, (By.TAG_NAME, "h1"))
            assert heading.text == "You are signed in"
            assert driver.current_url.startswith("http://127.0.0.1:")
            assert "/callback?" in driver.current_url
            screenshot(driver, f"portico-kit-loopback-done-{shot}")

            out, err = login.communicate(timeout=30)
            assert login.returncode == 0, err
            assert "Signed in as Kit Person." in out
        finally:
            if login.poll() is None:
                login.kill()
                login.wait()

        whoami = subprocess.run([demo, "whoami", "--json"], env=environment, capture_output=True, text=True,
                                timeout=30)
        assert whoami.returncode == 0, whoami.stderr
        profile = json.loads(whoami.stdout)
        assert profile["email"] == email
        assert profile["name"] == "Kit Person"
        logout = subprocess.run([demo, "logout"], env=environment, capture_output=True, text=True, timeout=30)
        assert logout.returncode == 0, logout.stderr
