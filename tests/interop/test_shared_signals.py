"""Shared Signals (SSF 1.0, CAEP, RISC) end to end: a real `portico serve`, receivers made with
`portico client add --ssf`, people who allowed them through the real pages, and a receiver
written here (ssf_receiver.py) that verifies every SET against the JWKS with joserfc. Each event
type is caused the way a person or an operator causes it: `portico user disable/enable/remove`,
Remove in Your Account, a password reset by the mailed link, sign out everywhere."""

import base64
import hashlib
import os
import pathlib
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import pytest
import requests

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from conftest import PersonAtBrowser, forms_of  # noqa: E402
from ssf_receiver import CAEP, RISC, SSF, PushReceiver, SETVerifier  # noqa: E402

PUSH = "urn:ietf:rfc:8935"
POLL = "urn:ietf:rfc:8936"
REDIRECT_URI = "http://127.0.0.1/ssf/callback"
PASSWORD = "interop-password"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Transmitter:
    """`portico serve --allow-loopback-callbacks` on a fixed port (so it keeps its issuer across
    a restart) and a SQLite file of its own; the admin CLI on the same database."""

    def __init__(self, binary):
        self.binary = binary
        self.workdir = tempfile.mkdtemp(prefix="portico-ssf-")
        self.database = f"sqlite:{self.workdir}/portico.db"
        self.outbox = os.path.join(self.workdir, "outbox")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.start()

    def start(self):
        # Its log goes to a file: a pipe nobody reads would block the server once full.
        self.log = open(os.path.join(self.workdir, "serve.log"), "a")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--quiet", "--database", self.database,
             "--outbox", self.outbox, "--allow-loopback-callbacks"],
            cwd=self.workdir, stdout=subprocess.DEVNULL, stderr=self.log, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("portico serve did not start: " + pathlib.Path(self.log.name).read_text())

    def stop(self):
        self.process.terminate()
        assert self.process.wait(timeout=30) == 0

    def command(self, *arguments, stdin=None):
        result = subprocess.run([self.binary, *arguments, "--database", self.database], input=stdin,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def mail_to(self, address, containing):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            folder = pathlib.Path(self.outbox)
            for path in sorted(folder.glob("*.eml"), key=lambda p: p.stat().st_mtime_ns, reverse=True) \
                    if folder.is_dir() else []:
                text = path.read_bytes().decode()
                if f"\r\nTo: {address}\r\n" in text and containing in text:
                    return text
            time.sleep(0.1)
        raise AssertionError(f"no mail to {address}")


@pytest.fixture(scope="module")
def transmitter(portico_binary):
    instance = Transmitter(portico_binary)
    yield instance
    instance.stop()


class Receiver:
    """An app registered with --ssf, its stream-management token and verifier."""

    def __init__(self, transmitter, name, pairwise=False):
        import json
        arguments = ["client", "add", "--name", name, "--redirect-uri", REDIRECT_URI, "--grant", "authorization_code",
                     "--grant", "client_credentials", "--ssf", "--json"]
        if pairwise:
            arguments += ["--subject-type", "pairwise", "--sector", name.lower() + ".example"]
        created = json.loads(transmitter.command(*arguments))
        self.transmitter = transmitter
        self.client_id = created["client_id"]
        self.secret = created["client_secret"]
        self.token = self.access_token()
        self.verifier = SETVerifier(transmitter.url, self.client_id)
        self.configuration = requests.get(transmitter.url + "/.well-known/ssf-configuration", timeout=10).json()
        self.stream_id = None

    def access_token(self, scope=None):
        data = {"grant_type": "client_credentials"}
        if scope:
            data["scope"] = scope
        reply = requests.post(self.transmitter.url + "/oauth/token", data=data, auth=(self.client_id, self.secret),
                              timeout=10)
        assert reply.status_code == 200, reply.text
        return reply.json()["access_token"]

    def call(self, method, endpoint, token=None, **arguments):
        headers = {"Authorization": f"Bearer {token or self.token}"}
        return requests.request(method, self.configuration[endpoint], headers=headers, timeout=40, **arguments)

    def create_stream(self, delivery, events=None):
        body = {"delivery": delivery}
        if events is not None:
            body["events_requested"] = events
        reply = self.call("POST", "configuration_endpoint", json=body)
        assert reply.status_code == 201, reply.text
        self.stream_id = reply.json()["stream_id"]
        return reply.json()

    def poll(self, **body):
        reply = requests.post(self.transmitter.url + "/ssf/poll", json=body,
                              headers={"Authorization": f"Bearer {self.token}"}, timeout=40)
        assert reply.status_code == 200, reply.text
        return reply.json()


ALL_EVENTS = [CAEP + "session-revoked", CAEP + "credential-change", CAEP + "token-claims-change",
              RISC + "account-disabled", RISC + "account-enabled", RISC + "account-purged",
              RISC + "identifier-changed"]


def new_person(transmitter):
    email = f"ssf-{uuid.uuid4().hex[:10]}@interop.example"
    transmitter.command("user", "add", "--email", email, "--name", "Signal Person", "--password-stdin",
                        stdin=PASSWORD + "\n")
    return PersonAtBrowser(email, PASSWORD)


def allow(transmitter, person, receiver, scope="openid profile email"):
    """The person signs in to the app and allows it, through the real pages."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": receiver.client_id, "redirect_uri": REDIRECT_URI, "scope": scope,
        "state": secrets.token_urlsafe(8), "code_challenge": challenge, "code_challenge_method": "S256"})
    callback = person.authorize(transmitter.url + "/oauth/authorize?" + query, REDIRECT_URI)
    assert "code=" in callback, callback


def account_form_post(transmitter, person, button, value):
    page = person.session.get(transmitter.url + "/account", timeout=10)
    assert page.status_code == 200, page.text[:300]
    for form in forms_of(page.text):
        if (button, value) in form["buttons"]:
            data = {f["name"]: f.get("value", "") for f in form["fields"] if f.get("name")}
            data[button] = value
            reply = person.session.post(transmitter.url + form["action"], data=data, allow_redirects=False,
                                        timeout=10)
            assert reply.status_code == 303, reply.text[:300]
            return
    raise AssertionError(f"no {button}={value} button on /account")


def test_configuration_names_the_endpoints(transmitter):
    document = requests.get(transmitter.url + "/.well-known/ssf-configuration", timeout=10).json()
    assert document["issuer"] == transmitter.url
    assert set(document["delivery_methods_supported"]) == {PUSH, POLL}
    for name in ["configuration_endpoint", "status_endpoint", "add_subject_endpoint", "remove_subject_endpoint",
                 "verification_endpoint"]:
        assert document[name].startswith(transmitter.url + "/ssf/"), name


def test_stream_management_errors(transmitter):
    shop = Receiver(transmitter, "Errors Shop")
    other = Receiver(transmitter, "Errors Other")
    shop.create_stream({"method": POLL})
    # Missing token, wrong-scope token (an app without --ssf), another client's stream.
    reply = requests.get(shop.configuration["configuration_endpoint"], timeout=10)
    assert reply.status_code == 401 and reply.json()["error"] == "invalid_token"
    plain = __import__("json").loads(transmitter.command(
        "client", "add", "--name", "Plain", "--redirect-uri", REDIRECT_URI, "--grant", "client_credentials",
        "--json"))
    token = requests.post(transmitter.url + "/oauth/token", data={"grant_type": "client_credentials"},
                          auth=(plain["client_id"], plain["client_secret"]), timeout=10).json()["access_token"]
    reply = shop.call("GET", "configuration_endpoint", token=token)
    assert reply.status_code == 403 and reply.json()["error"] == "insufficient_scope"
    for method, endpoint, arguments in [
            ("GET", "configuration_endpoint", {"params": {"stream_id": shop.stream_id}}),
            ("DELETE", "configuration_endpoint", {"params": {"stream_id": shop.stream_id}}),
            ("POST", "status_endpoint", {"json": {"stream_id": shop.stream_id, "status": "disabled"}}),
            ("POST", "verification_endpoint", {"json": {"stream_id": shop.stream_id}})]:
        reply = other.call(method, endpoint, **arguments)
        assert reply.status_code == 404 and reply.json()["error"] == "not_found", (method, endpoint, reply.text)
    status = shop.call("GET", "status_endpoint", params={"stream_id": shop.stream_id}).json()
    assert status["status"] == "enabled"
    # Bad delivery URLs: only https, or http on loopback.
    for url in ["http://receiver.example/events", "ftp://receiver.example/", "https://receiver.example/#x"]:
        reply = other.call("POST", "configuration_endpoint", json={"delivery": {"method": PUSH, "endpoint_url": url}})
        assert reply.status_code == 400 and reply.json()["error"] == "invalid_request", (url, reply.text)
    assert other.call("GET", "configuration_endpoint").json() == []


@pytest.fixture(scope="module")
def pushed(transmitter):
    """One push receiver for the event tests, with its stream, asking for every event."""
    receiver = Receiver(transmitter, "Push Shop")
    endpoint = PushReceiver(receiver.verifier)
    receiver.create_stream({"method": PUSH, "endpoint_url": endpoint.url}, events=ALL_EVENTS)
    yield receiver, endpoint
    endpoint.stop()


def events_for(endpoint, sub, of_type):
    return [c for c in endpoint.events(of_type) if c["sub_id"]["sub"] == sub]


def wait_events(endpoint, sub, of_type, count=1, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = events_for(endpoint, sub, of_type)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no {of_type} for {sub}: {[list(c['events']) for c in endpoint.events()]}")


def user_id(transmitter, email):
    import json
    return next(u["user_id"] for u in json.loads(transmitter.command("user", "list", "--json")) if u["email"] == email)


def test_account_disabled_and_enabled_by_the_cli(transmitter, pushed):
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    sub = user_id(transmitter, person.email)
    transmitter.command("user", "disable", person.email, "--reason", "hijacking")
    disabled = wait_events(endpoint, sub, RISC + "account-disabled")[0]
    assert disabled["events"][RISC + "account-disabled"] == {"reason": "hijacking"}
    transmitter.command("user", "enable", person.email)
    enabled = wait_events(endpoint, sub, RISC + "account-enabled")[0]
    assert enabled["txn"] != disabled["txn"]


def test_account_purged_by_removal(transmitter, pushed):
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    sub = user_id(transmitter, person.email)
    transmitter.command("user", "remove", person.email)
    wait_events(endpoint, sub, RISC + "account-purged")


def test_session_revoked_when_removed_in_your_account(transmitter, pushed):
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    sub = user_id(transmitter, person.email)
    account_form_post(transmitter, person, "revoke", receiver.client_id)
    revoked = wait_events(endpoint, sub, CAEP + "session-revoked")[0]
    event = revoked["events"][CAEP + "session-revoked"]
    assert isinstance(event["event_timestamp"], int)


def test_session_revoked_when_signed_out_everywhere(transmitter, pushed):
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    sub = user_id(transmitter, person.email)
    # A second browser signed in, which "Sign out everywhere else" ends.
    allow(transmitter, PersonAtBrowser(person.email, PASSWORD), receiver)
    account_form_post(transmitter, person, "end_others", "1")
    wait_events(endpoint, sub, CAEP + "session-revoked")


def test_credential_change_by_password_reset_mail_link(transmitter, pushed):
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    sub = user_id(transmitter, person.email)
    browser = requests.Session()
    page = browser.get(transmitter.url + "/password/forgot", timeout=10)
    form = next(f for f in forms_of(page.text) if any(x.get("name") == "email" for x in f["fields"]))
    data = {f["name"]: f.get("value", "") for f in form["fields"] if f.get("name")}
    data["email"] = person.email
    reply = browser.post(urllib.parse.urljoin(page.url, form["action"] or page.url), data=data, timeout=10)
    assert reply.status_code == 200, reply.text[:300]
    mail = transmitter.mail_to(person.email, "/password/reset")
    link = re.search(r"(http\S+/password/reset\?token=[A-Za-z0-9_-]+)", mail.replace("=\r\n", "")).group(1)
    page = browser.get(link, timeout=10)
    form = next(f for f in forms_of(page.text) if any(x.get("name") == "password" for x in f["fields"]))
    data = {f["name"]: f.get("value", "") for f in form["fields"] if f.get("name")}
    data.update(password="a brand new password 2026", password_confirmation="a brand new password 2026")
    reply = browser.post(urllib.parse.urljoin(page.url, form["action"] or page.url), data=data, timeout=30)
    assert reply.status_code == 200, reply.text[:300]
    change = wait_events(endpoint, sub, CAEP + "credential-change")[0]
    assert change["events"][CAEP + "credential-change"]["credential_type"] == "password"
    assert change["events"][CAEP + "credential-change"]["change_type"] == "update"
    revoked = wait_events(endpoint, sub, CAEP + "session-revoked")[0]
    assert revoked["txn"] == change["txn"], "one action, one txn"


def two_step_form(transmitter, person, action):
    """The /account/two-step form whose hidden `action` is `action`, its fields filled as sent."""
    page = person.session.get(transmitter.url + "/account/two-step", timeout=10)
    assert page.status_code == 200, page.text[:300]
    for form in forms_of(page.text):
        fields = {f["name"]: f.get("value", "") for f in form["fields"] if f.get("name")}
        if fields.get("action") == action:
            return page, urllib.parse.urljoin(page.url, form["action"] or page.url), fields
    raise AssertionError(f"no action={action} form on /account/two-step")


def test_credential_change_when_two_step_is_turned_on_and_off(transmitter, pushed):
    import hmac
    import struct
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    sub = user_id(transmitter, person.email)
    page, action, data = two_step_form(transmitter, person, "confirm")
    secret = re.search(r'id="secret"[^>]*>([A-Z2-7 ]+)<', page.text).group(1).replace(" ", "")
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(time.time()) // 30), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    data.update(otp="%06d" % ((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000),
                confirm_password=PASSWORD)
    reply = person.session.post(action, data=data, timeout=10)
    assert reply.status_code == 200 and "recovery-codes" in reply.text, reply.text[:300]
    on = wait_events(endpoint, sub, CAEP + "credential-change")[0]["events"][CAEP + "credential-change"]
    assert (on["credential_type"], on["change_type"]) == ("app", "create")

    _, action, data = two_step_form(transmitter, person, "remove")
    data["remove_password"] = PASSWORD
    reply = person.session.post(action, data=data, allow_redirects=False, timeout=10)
    assert reply.status_code == 303, reply.text[:300]
    changes = wait_events(endpoint, sub, CAEP + "credential-change", count=2)
    off = changes[1]["events"][CAEP + "credential-change"]
    assert (off["credential_type"], off["change_type"]) == ("app", "delete")
    assert changes[0]["txn"] != changes[1]["txn"]


def test_push_with_the_receiver_down_and_a_server_restart_loses_nothing(transmitter):
    receiver = Receiver(transmitter, "Restart Shop")
    endpoint = PushReceiver(receiver.verifier)
    receiver.create_stream({"method": PUSH, "endpoint_url": endpoint.url}, events=ALL_EVENTS)
    people = [new_person(transmitter) for _ in range(3)]
    for person in people:
        allow(transmitter, person, receiver)
    endpoint.stop()
    for person in people:
        transmitter.command("user", "disable", person.email)
        transmitter.command("user", "enable", person.email)
    time.sleep(1)
    transmitter.stop()
    transmitter.start()
    endpoint.start()
    found = endpoint.wait_for(6, timeout=90)
    time.sleep(1)
    assert len(endpoint.events()) == 6 and not endpoint.duplicates
    for person in people:
        sub = user_id(transmitter, person.email)
        kinds = [next(iter(c["events"])) for c in found if c["sub_id"]["sub"] == sub]
        assert kinds == [RISC + "account-disabled", RISC + "account-enabled"], kinds
    endpoint.stop()


def test_poll_ack_more_available_and_long_poll(transmitter):
    receiver = Receiver(transmitter, "Poll Shop")
    receiver.create_stream({"method": POLL}, events=ALL_EVENTS)
    person = new_person(transmitter)
    allow(transmitter, person, receiver)
    transmitter.command("user", "disable", person.email)
    transmitter.command("user", "enable", person.email)
    first = receiver.poll(maxEvents=1, returnImmediately=True)
    assert first["moreAvailable"] is True and len(first["sets"]) == 1
    (jti, token), = first["sets"].items()
    assert receiver.verifier.verify(token)["jti"] == jti
    second = receiver.poll(ack=[jti], maxEvents=10, returnImmediately=True)
    assert second["moreAvailable"] is False and list(second["sets"]) != [jti] and len(second["sets"]) == 1
    (jti2, token2), = second["sets"].items()
    receiver.verifier.verify(token2)
    empty = receiver.poll(ack=[jti2], returnImmediately=True)
    assert empty == {"sets": {}, "moreAvailable": False}

    # Long poll: the request waits until an event arrives.
    answer = {}

    def wait():
        started = time.monotonic()
        answer["reply"] = receiver.poll(maxEvents=5)
        answer["waited"] = time.monotonic() - started

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(1.5)
    assert waiter.is_alive(), "the poll answered before any event"
    transmitter.command("user", "disable", person.email)
    waiter.join(timeout=35)
    assert answer["waited"] >= 1.5 and len(answer["reply"]["sets"]) == 1
    claims = receiver.verifier.verify(next(iter(answer["reply"]["sets"].values())))
    assert RISC + "account-disabled" in claims["events"]


def test_verification_event(transmitter):
    receiver = Receiver(transmitter, "Verify Shop")
    receiver.create_stream({"method": POLL}, events=[])
    reply = receiver.call("POST", "verification_endpoint", json={"stream_id": receiver.stream_id, "state": "xyz"})
    assert reply.status_code == 204, reply.text
    sets = receiver.poll(returnImmediately=True)["sets"]
    claims = receiver.verifier.verify(next(iter(sets.values())))
    assert claims["events"] == {SSF + "verification": {"state": "xyz"}}
    assert claims["sub_id"] == {"format": "opaque", "id": receiver.stream_id}


def test_token_claims_change_and_identifier_changed_by_the_cli(transmitter, pushed):
    receiver, endpoint = pushed
    person = new_person(transmitter)
    allow(transmitter, person, receiver, scope="openid profile")   # the app may see the name, not the address
    sub = user_id(transmitter, person.email)
    new_email = "renamed-" + person.email
    transmitter.command("user", "update", person.email, "--name", "New Name", "--email", new_email)
    change = wait_events(endpoint, sub, CAEP + "token-claims-change")[0]
    assert change["events"][CAEP + "token-claims-change"]["claims"] == {"name": "New Name"}
    # identifier-changed carries the new address only for apps allowed to see e-mail: none here.
    assert not events_for(endpoint, sub, RISC + "identifier-changed")

    other = new_person(transmitter)
    allow(transmitter, other, receiver, scope="openid email")
    other_sub = user_id(transmitter, other.email)
    newer = "changed-" + other.email
    transmitter.command("user", "update", other.email, "--email", newer)
    identifier = wait_events(endpoint, other_sub, RISC + "identifier-changed")[0]
    assert identifier["events"][RISC + "identifier-changed"] == {"new-value": newer}
    claims = wait_events(endpoint, other_sub, CAEP + "token-claims-change")[0]
    assert claims["events"][CAEP + "token-claims-change"]["claims"] == {"email": newer}
    assert claims["txn"] == identifier["txn"]
