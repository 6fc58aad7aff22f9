"""Fixtures for interoperability tests: a real `portico serve` on a free loopback port with its
own SQLite file, the real `portico` admin commands against that database, and a form-driving
"browser" built on requests that signs in and answers consent like a person would."""

import html.parser
import json
import pathlib
import sys
import re
import urllib.parse
import uuid

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))

import portico_server  # noqa: E402


@pytest.fixture(scope="session")
def portico_binary():
    binary = portico_server.binary()
    if binary is None:
        pytest.fail("no portico binary; run `swift build` first (or set PORTICO_BINARY)")
    return binary


class Portico(portico_server.Server):
    """A running `portico serve` and the admin command line for its database."""

    def json_command(self, *arguments, stdin=None):
        result = self.command(*arguments, "--json", stdin=stdin)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def add_client(self, *arguments):
        return self.json_command("client", "add", *arguments)

    def add_user(self, email, name="Interop Person", password="interop-password", postal_code="10115"):
        created = self.json_command(
            "user", "add", "--email", email, "--name", name, "--postal-code", postal_code,
            "--password-stdin", stdin=password + "\n")
        return created["user_id"]


@pytest.fixture(scope="session")
def portico(portico_binary):
    """Starts `portico serve --port 0` on a fresh database; stops it with SIGTERM."""
    instance = Portico(portico_binary, "portico-interop-")
    yield instance
    instance.stop()


class _Forms(html.parser.HTMLParser):
    """Collects every form of a page: action, method, inputs and submit buttons."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "form":
            self.forms.append({"action": attributes.get("action", ""), "method": attributes.get("method", "get"),
                               "fields": [], "buttons": []})
        elif self.forms and tag == "input":
            self.forms[-1]["fields"].append(attributes)
        elif self.forms and tag == "button" and attributes.get("name"):
            self.forms[-1]["buttons"].append((attributes["name"], attributes.get("value", "")))


def forms_of(page):
    parser = _Forms()
    parser.feed(page)
    return parser.forms


class PersonAtBrowser:
    """A person in a browser without JavaScript: follows redirects, fills the sign-in form
    (hidden fields such as the CSRF token are sent back as they came) and answers consent."""

    def __init__(self, email, password):
        self.session = requests.Session()
        self.email = email
        self.password = password
        self.pages = []

    def authorize(self, url, redirect_uri, decision="allow"):
        """Starts at an authorization URL and returns the URL the provider redirects back to."""
        response = self.session.get(url, allow_redirects=False, timeout=30)
        for _ in range(20):
            location = response.headers.get("Location")
            if location:
                target = urllib.parse.urljoin(response.url, location)
                if target.startswith(redirect_uri):
                    return target
                response = self.session.get(target, allow_redirects=False, timeout=30)
                continue
            assert response.status_code == 200, f"{response.status_code} at {response.url}: {response.text[:500]}"
            self.pages.append(response)
            response = self._answer(response, decision)
        raise AssertionError("too many steps before the redirect back to the app")

    def _answer(self, response, decision):
        for form in forms_of(response.text):
            names = {field.get("name") for field in form["fields"]}
            data = {field["name"]: field.get("value", "") for field in form["fields"]
                    if field.get("name") and field.get("type", "text") == "hidden"}
            action = urllib.parse.urljoin(response.url, form["action"] or response.url)
            if {"email", "password"} <= names:
                data.update(email=self.email, password=self.password)
                return self.session.post(action, data=data, allow_redirects=False, timeout=30)
            if ("decision", decision) in form["buttons"]:
                data["decision"] = decision
                return self.session.post(action, data=data, allow_redirects=False, timeout=30)
        raise AssertionError(f"no sign-in or consent form at {response.url}: {response.text[:800]}")


@pytest.fixture
def person(portico, request):
    """A fresh platform account (made with `portico user add`) and a browser for them."""
    # Unique per run, so the suite can run twice on one database (tests/cluster does).
    email = f"{request.node.name.replace('[', '-').replace(']', '')}-{uuid.uuid4().hex[:6]}@interop.example"
    email = re.sub(r"[^A-Za-z0-9@.-]", "-", email).lower()
    portico.add_user(email)
    return PersonAtBrowser(email, "interop-password")


@pytest.fixture(scope="session")
def metadata(portico):
    """The discovery document: the only configuration the OAuth client gets."""
    response = requests.get(portico.url + "/.well-known/openid-configuration", timeout=30)
    assert response.status_code == 200
    return response.json()
