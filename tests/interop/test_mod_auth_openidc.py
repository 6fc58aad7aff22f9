"""Apache's mod_auth_openidc, an independent relying party, registers itself dynamically
(RFC 7591) with an initial access token from `portico registration-token create`, then signs a
person in: its `OIDCMetadataDir` holds Portico's discovery document (`.provider`) and the token
(`.conf`) but no `.client` file, so the module registers on first use and writes one.

Apache runs from its own temporary ServerRoot on a free loopback port (as www-data when the
test runs as root, since Apache will not serve as root); a CGI script behind
`AuthType openid-connect` prints what the module hands the application. Portico runs with
`--allow-loopback-callbacks`, since the module registers a back-channel logout URI at its own
loopback address, and a sign-out at Portico is seen to end the Apache session through it.
The tests are skipped only when apache2 or the module is not installed (scripts/bootstrap
installs both)."""

import json
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

import pytest
import requests

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from conftest import Portico, forms_of  # noqa: E402

MODULES = pathlib.Path("/usr/lib/apache2/modules")
APACHE = shutil.which("apache2") or "/usr/sbin/apache2"

WHOAMI = """#!/usr/bin/env python3
import json, os
print("Content-Type: application/json")
print()
print(json.dumps({"remote_user": os.environ.get("REMOTE_USER"),
                  "sub": os.environ.get("OIDC_CLAIM_sub"),
                  "email": os.environ.get("OIDC_CLAIM_email"),
                  "name": os.environ.get("OIDC_CLAIM_name"),
                  "iss": os.environ.get("OIDC_CLAIM_iss")}))
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def metadata_name(issuer):
    """mod_auth_openidc's file name for an issuer: without `http(s)://` and a trailing slash,
    URL-encoded (127.0.0.1:8080 → 127.0.0.1%3A8080)."""
    bare = issuer.split("://", 1)[1].rstrip("/")
    return urllib.parse.quote(bare, safe="")


class Apache:
    """`apache2 -DFOREGROUND` on a free loopback port with mod_auth_openidc in front of /protected."""

    def __init__(self, issuer, discovery, registration_token, user):
        self.root = pathlib.Path(tempfile.mkdtemp(prefix="portico-mod-auth-openidc-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.redirect_uri = self.url + "/protected/redirect_uri"
        self.metadata = self.root / "metadata"
        self.metadata.mkdir()
        name = metadata_name(issuer)
        self.provider_file = self.metadata / (name + ".provider")
        self.conf_file = self.metadata / (name + ".conf")
        self.client_file = self.metadata / (name + ".client")
        self.provider_file.write_text(json.dumps(discovery))
        self.conf_file.write_text(json.dumps({
            "registration_token": registration_token,
            "client_name": "mod_auth_openidc interop",
            "scope": "openid profile email",
            "pkce_method": "S256",
            # The module asks for every flow it knows (implicit and hybrid too) unless told
            # otherwise; Portico has only the code flow and refuses the others.
            "registration_endpoint_json": json.dumps({
                "response_types": ["code"], "grant_types": ["authorization_code", "refresh_token"]}),
        }))
        script = self.root / "whoami.py"
        script.write_text(WHOAMI)
        script.chmod(0o755)
        self.error_log = self.root / "error.log"
        if user is not None:
            # Apache's children (and so the module writing the .client file) run as this user.
            os.chmod(self.root, 0o755)
            os.chown(self.metadata, user.pw_uid, user.pw_gid)
        config = self.root / "apache2.conf"
        config.write_text(self._config(user))
        # Its own process group, so that stop() reaches the children too; its output goes to a
        # file (a pipe nobody reads could fill and block it).
        self.output = self.root / "apache2.out"
        with open(self.output, "w") as output:
            self.process = subprocess.Popen(
                [APACHE, "-d", str(self.root), "-f", str(config), "-DFOREGROUND"],
                stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_until_listening()

    def _config(self, user):
        modules = ["mpm_prefork", "authz_core", "authz_user", "authn_core", "alias", "cgi", "auth_openidc"]
        lines = [f"ServerRoot {self.root}", "ServerName 127.0.0.1",
                 f"Listen 127.0.0.1:{self.port}", f"PidFile {self.root}/apache2.pid",
                 f"ErrorLog {self.error_log}", "LogLevel warn auth_openidc:debug",
                 f"DocumentRoot {self.root}", "StartServers 1", "MaxRequestWorkers 8"]
        lines += [f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in modules]
        if user is not None:
            lines += [f"User {user.pw_name}", f"Group #{user.pw_gid}"]
        lines += [
            f"OIDCMetadataDir {self.metadata}",
            f"OIDCRedirectURI {self.redirect_uri}",
            "OIDCCryptoPassphrase portico-interop-passphrase",
            "OIDCSSLValidateServer Off",
            "OIDCPKCEMethod S256",
            'OIDCScope "openid profile email"',
            "OIDCRemoteUserClaim sub",
            "OIDCProviderMetadataRefreshInterval 0",
            f"ScriptAlias /protected/whoami {self.root}/whoami.py",
            "<Location /protected>",
            "  AuthType openid-connect",
            "  Require valid-user",
            "</Location>",
        ]
        return "\n".join(lines) + "\n"

    def _wait_until_listening(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.output.read_text(errors="replace") + self.log()
                self.stop()
                raise AssertionError(f"apache2 exited with {self.process.returncode}: {output}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        log = self.log()
        self.stop()
        raise AssertionError("apache2 did not listen within 20 s:\n" + log)

    def log(self):
        return self.error_log.read_text(errors="replace") if self.error_log.exists() else "(no error log)"

    def stop(self):
        """SIGTERM to the process group (the parent and its children), SIGKILL after 10 s."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def portico(portico_binary):
    """A `portico serve` of this module's own with `--allow-loopback-callbacks`: the module
    registers a back-channel logout URI on its own (loopback) address."""
    instance = Portico(portico_binary, "portico-interop-modoidc-", "--allow-loopback-callbacks")
    yield instance
    instance.stop()


@pytest.fixture
def registration_token(portico):
    return portico.json_command("registration-token", "create", "--uses", "1")["token"]


@pytest.fixture
def apache(portico, registration_token):
    if not os.access(APACHE, os.X_OK) or not (MODULES / "mod_auth_openidc.so").exists():
        pytest.skip("apache2 or libapache2-mod-auth-openidc is not installed (scripts/bootstrap installs them)")
    user = None
    if os.geteuid() == 0:   # Apache will not serve as root: its children run as www-data
        try:
            user = pwd.getpwnam("www-data")
        except KeyError:
            pytest.skip("running as root without a www-data user for Apache's children")
    discovery = requests.get(portico.url + "/.well-known/openid-configuration", timeout=30)
    assert discovery.status_code == 200
    server = Apache(portico.url, discovery.json(), registration_token, user)
    try:
        yield server
    finally:
        print("apache2 error log:\n" + server.log())   # pytest shows it when the test failed
        server.stop()


def initiate_login(portico, apache, target):
    """OpenID Connect third-party initiated login at the module: `iss` picks the provider."""
    return apache.redirect_uri + "?" + urllib.parse.urlencode({"iss": portico.url, "target_link_uri": target})


def clients(portico):
    """`portico client list`, by client id."""
    return {client["client_id"]: client for client in portico.json_command("client", "list")}


def test_mod_auth_openidc_registers_and_signs_in(portico, person, apache, registration_token):
    before = set(clients(portico))
    assert not apache.client_file.exists()

    # Third-party initiated login: mod_auth_openidc picks the provider named by `iss` from its
    # metadata directory, registers there, and sends the browser to the authorization endpoint.
    target = apache.url + "/protected/whoami"
    start = initiate_login(portico, apache, target)
    back = person.authorize(start, apache.redirect_uri)
    # The person signed in and then allowed the new app.
    assert [page.url.split("?")[0] for page in person.pages] == [portico.url + "/login", portico.url + "/consent"], \
        [page.url for page in person.pages]
    assert apache.client_file.exists()

    registered = json.loads(apache.client_file.read_text())
    client_id = registered["client_id"]
    assert client_id not in before
    listed = clients(portico)[client_id]
    assert listed["name"] == "mod_auth_openidc interop" and listed["type"] == "confidential"
    assert listed["verified"] is False   # registered by itself: not verified by the operator
    assert listed["redirect_uris"] == registered["redirect_uris"] == [apache.redirect_uri]
    assert registered["registration_client_uri"] == portico.url + "/oauth/register/" + client_id

    # The token had one use: a second registration with it is refused.
    second = requests.post(portico.url + "/oauth/register", timeout=30,
                           headers={"Authorization": "Bearer " + registration_token},
                           json={"redirect_uris": [apache.redirect_uri]})
    assert second.status_code == 401, second.text
    assert set(clients(portico)) == before | {client_id}

    # The code comes back to the module, which redeems it and sends the browser on to the page.
    query = urllib.parse.parse_qs(urllib.parse.urlparse(back).query)
    assert "code" in query and query.get("iss") == [portico.url], back
    response = person.session.get(back, allow_redirects=False, timeout=30)
    assert response.status_code == 302, f"{response.status_code}: {response.text[:500]}"
    assert response.headers["Location"] == target
    page = person.session.get(target, allow_redirects=False, timeout=30)
    assert page.status_code == 200, f"{page.status_code}: {page.text[:500]}"
    claims = page.json()
    assert claims["email"] == person.email and claims["name"] == "Interop Person"
    assert claims["iss"] == portico.url
    assert claims["sub"] and claims["remote_user"] == claims["sub"], claims   # OIDCRemoteUserClaim sub

    # Another browser, without the session cookie, gets the module's provider choice, not the page.
    anonymous = requests.get(target, allow_redirects=False, timeout=30)
    assert anonymous.headers.get("Content-Type", "").startswith("text/html"), anonymous.headers
    assert claims["sub"] not in anonymous.text


def test_mod_auth_openidc_session_ends_with_portico_sign_out(portico, person, apache):
    """Signing out at Portico ends the Apache session too: Portico POSTs a logout token (with the
    ID token's `sid`) to the back-channel logout URI the module registered, and the module,
    having checked it against the JWKS, drops that session."""
    target = apache.url + "/protected/whoami"
    start = initiate_login(portico, apache, target)
    back = person.authorize(start, apache.redirect_uri)
    assert person.session.get(back, allow_redirects=False, timeout=30).status_code == 302
    page = person.session.get(target, allow_redirects=False, timeout=30)
    assert page.status_code == 200 and page.json()["email"] == person.email, page.text[:500]

    confirm = person.session.get(portico.url + "/oauth/logout", allow_redirects=False, timeout=30)
    assert confirm.status_code == 200, confirm.text[:500]
    form = next(form for form in forms_of(confirm.text) if ("decision", "logout") in form["buttons"])
    data = {field["name"]: field.get("value", "") for field in form["fields"] if field.get("type") == "hidden"}
    signed_out = person.session.post(urllib.parse.urljoin(confirm.url, form["action"]),
                                     data={**data, "decision": "logout"}, allow_redirects=False, timeout=30)
    assert signed_out.status_code in (200, 303), signed_out.text[:500]

    # Delivery is from Portico's outbox, in the background: the page stops answering within 15 s.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        page = person.session.get(target, allow_redirects=False, timeout=30)
        if not page.headers.get("Content-Type", "").startswith("application/json"):
            break
        time.sleep(0.2)
    assert not page.headers.get("Content-Type", "").startswith("application/json"), \
        "the Apache session outlived the sign-out at Portico: " + page.text[:300]
    assert person.email not in page.text
