"""The companion's own sign-in in a real headless chromium: `portico-agent login` opens the
browser on a loopback redirect (RFC 8252), the person signs in once, and Your Account then
lists "Portico agent on <host>" with Sign out; signing it out there makes apps fall back to
the browser, and the agent says nobody is signed in."""

import json
import os
import pathlib
import socket
import subprocess
import tempfile
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait


def sibling(portico_binary, name):
    path = pathlib.Path(portico_binary).parent / name
    if not os.access(path, os.X_OK):
        pytest.fail(f"no {name} next to portico ({path}); run `swift build` first")
    return str(path)


def wait_for(driver, locator, timeout=20):
    return WebDriverWait(driver, timeout).until(conditions.presence_of_element_located(locator))


def wait_for_file(path, process, what, seconds=30):
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    text = path.read_text()
    path.unlink()
    return text


def test_the_agent_signs_in_in_the_browser_and_your_account_ends_its_session(
        demo_server, portico_binary, browser, screenshot):
    driver = browser
    added = demo_server.command("client", "add", "--companion", "--name", "Portico agent", "--json")
    assert added.returncode == 0, added.stderr
    agent_id = json.loads(added.stdout)["client_id"]
    app = demo_server.command("client", "add", "--name", "CLI demo", "--public",
                              "--redirect-uri", "http://127.0.0.1/callback", "--json")
    assert app.returncode == 0, app.stderr
    app_id = json.loads(app.stdout)["client_id"]
    email, password = demo_server.add_user(name="Agent Person")
    agent = sibling(portico_binary, "portico-agent")
    demo = sibling(portico_binary, "portico-demo")

    with tempfile.TemporaryDirectory(prefix="portico-agent-browser-") as workdir:
        work = pathlib.Path(workdir)
        handoff = work / "url"
        opener = work / "browser"
        opener.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{handoff}.tmp" && mv "{handoff}.tmp" "{handoff}"\n')
        opener.chmod(0o700)
        (work / "run").mkdir(mode=0o700)
        environment = {**os.environ, "PORTICO_ISSUER": demo_server.url, "PORTICO_AGENT_CLIENT_ID": agent_id,
                       "PORTICO_CLIENT_ID": app_id, "HOME": workdir, "XDG_CONFIG_HOME": str(work / "config"),
                       "XDG_RUNTIME_DIR": str(work / "run"), "BROWSER": str(opener), "LANG": "C.UTF-8"}
        environment.pop("LC_ALL", None)
        children = []

        def start(*arguments, binary=agent):
            child = subprocess.Popen([binary, *arguments], env=environment, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            children.append(child)
            return child

        try:
            login = start("login")
            url = wait_for_file(handoff, login, "portico-agent never opened the browser")
            assert url.startswith(demo_server.url + "/oauth/authorize?")
            # The agent pushed its request (PAR): the URL carries only client_id and request_uri.
            assert "request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A" in url
            assert f"client_id={agent_id}" in url and "scope=" not in url
            driver.get(url)
            wait_for(driver, (By.NAME, "email")).send_keys(email)
            driver.find_element(By.NAME, "password").send_keys(password)
            driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
            wait_for(driver, (By.CSS_SELECTOR, 'button[name="decision"][value="allow"]')).click()
            WebDriverWait(driver, 20).until(
                lambda d: "/callback?" in d.current_url and not d.current_url.startswith(demo_server.url))
            assert wait_for(driver, (By.TAG_NAME, "h1")).text == "You are signed in"
            out, err = login.communicate(timeout=30)
            assert login.returncode == 0, err
            assert "Signed in as Agent Person." in out

            status = subprocess.run([agent, "status", "--json"], env=environment, capture_output=True, text=True,
                                    timeout=30)
            assert status.returncode == 0, status.stderr
            assert json.loads(status.stdout)["signed_in"] is True

            # Your Account lists the companion session by host name, with Sign out.
            driver.get(demo_server.url + "/account")
            page = wait_for(driver, (By.TAG_NAME, "body")).text
            assert f"Portico agent on {socket.gethostname()}" in page
            screenshot(driver, "portico-agent-your-account")
            serve = start("serve")
            deadline = time.monotonic() + 30
            while not any((work / "run" / "portico").glob("agent-*.sock")):
                assert serve.poll() is None, serve.stderr.read()
                assert time.monotonic() < deadline, "portico-agent serve never listened"
                time.sleep(0.1)
            driver.find_element(By.CSS_SELECTOR, 'button[name="end_companion"]').click()
            WebDriverWait(driver, 20).until(lambda d: "done=signed_out" in d.current_url)
            assert f"Portico agent on {socket.gethostname()}" not in driver.find_element(By.TAG_NAME, "body").text

            # An app now asks the agent, hears it is signed out, and opens the browser instead.
            app_login = start("login", binary=demo)
            fallback = wait_for_file(handoff, app_login, "the app never fell back to the browser")
            assert fallback.startswith(demo_server.url + "/oauth/authorize?")
            app_login.kill()
            status = subprocess.run([agent, "status", "--json"], env=environment, capture_output=True, text=True,
                                    timeout=30)
            answer = json.loads(status.stdout)
            assert answer["signed_in"] is False
            assert answer["serving"] is True
        finally:
            for child in children:
                if child.poll() is None:
                    child.kill()
                    child.wait()
