"""Passkeys from a client that is not a browser and shares no code with the server: a software
authenticator written with PyPI `fido2` (python-fido2's CBOR, COSE, AuthenticatorData,
AttestationObject and CollectedClientData) and `cryptography` keys drives the server's passkey
endpoints over real HTTP, the way the page's script does: options as JSON
(`/account/passkeys/options`, `/passkeys/sign-in/options`), results as form posts with the
page's CSRF token (`/account/passkeys`, `/login/passkey`).

A passkey is registered from a signed-in session (attestation `none` and `packed` self
attestation), then signs a fresh session in. Then the server's verdict on each tampered input,
one at a time, every other part of the request being right: wrong origin, wrong RP ID hash, user
verification off, a replayed challenge, a signature counter going backwards (also written to the
audit log), another person's credential id or user handle.

The server listens on `localhost` (an IP address cannot be a WebAuthn RP ID); the RP ID and
origin are read from its discovery document, as a client would. Sign-in posts count against the
per-address throttle, so the server trusts loopback's `X-Real-IP` and each test names an address
of its own."""

import hashlib
import itertools
import json
import os
import sqlite3
import urllib.parse
import uuid

import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import (
    AttestationObject,
    AttestedCredentialData,
    AuthenticatorData,
    CollectedClientData,
)

from conftest import Portico, forms_of

FLAGS = AuthenticatorData.FLAG
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def server(portico_binary):
    """`portico serve` on localhost, believing loopback's X-Real-IP for throttles."""
    instance = Portico(portico_binary, "portico-interop-passkeys-", "--host", "localhost",
                       "--trusted-proxy", "127.0.0.1", "--client-address-header", "X-Real-IP")
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def relying_party(server):
    issuer = requests.get(server.url + "/.well-known/openid-configuration", timeout=30).json()["issuer"]
    parts = urllib.parse.urlsplit(issuer)
    return {"id": parts.hostname, "origin": f"{parts.scheme}://{parts.netloc}"}


class SoftwareAuthenticator:
    """A CTAP2-like platform authenticator in a few lines: one resident ES256 credential, user
    present and verified unless told otherwise, a counter that grows by one per assertion."""

    def __init__(self, rp_id):
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.user_handle = None
        self.counter = 0

    def _auth_data(self, flags, counter, attested=b"", rp_id=None):
        rp_id_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return AuthenticatorData.create(rp_id_hash, flags, counter, attested)

    def create(self, options, origin, fmt="none", flags=FLAGS.UP | FLAGS.UV, rp_id=None):
        """`navigator.credentials.create` for `options` (the server's JSON): the response members
        the page's script posts, base64url."""
        assert options["rp"]["id"] == self.rp_id
        assert options["authenticatorSelection"]["residentKey"] == "required"
        assert options["authenticatorSelection"]["userVerification"] == "required"
        assert -7 in [p["alg"] for p in options["pubKeyCredParams"]]
        excluded = [websafe_decode(c["id"]) for c in options["excludeCredentials"]]
        assert self.credential_id not in excluded
        self.user_handle = websafe_decode(options["user"]["id"])
        client_data = CollectedClientData.create("webauthn.create", websafe_decode(options["challenge"]), origin)
        attested = AttestedCredentialData.create(
            b"\0" * 16, self.credential_id, ES256.from_cryptography_key(self.key.public_key()))
        auth_data = self._auth_data(flags | FLAGS.AT, 0, attested, rp_id)
        statement = {}
        if fmt == "packed":   # self attestation: signed by the credential's own key, no x5c
            signature = self.key.sign(bytes(auth_data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
            statement = {"alg": -7, "sig": signature}
        attestation = AttestationObject.create(fmt, auth_data, statement)
        return {"id": websafe_encode(self.credential_id), "clientDataJSON": websafe_encode(bytes(client_data)),
                "attestationObject": websafe_encode(bytes(attestation))}

    def get(self, options, origin, flags=FLAGS.UP | FLAGS.UV, rp_id=None, counter=None,
            credential_id=None, user_handle=None):
        """`navigator.credentials.get` for `options`; each keyword overrides one part."""
        assert "allowCredentials" not in options and options["userVerification"] == "required"
        assert options["rpId"] == self.rp_id
        if counter is None:
            self.counter += 1
            counter = self.counter
        client_data = CollectedClientData.create("webauthn.get", websafe_decode(options["challenge"]), origin)
        auth_data = bytes(self._auth_data(flags, counter, rp_id=rp_id))
        signature = self.key.sign(auth_data + client_data.hash, ec.ECDSA(hashes.SHA256()))
        return {"id": websafe_encode(credential_id or self.credential_id),
                "clientDataJSON": websafe_encode(bytes(client_data)),
                "authenticatorData": websafe_encode(auth_data), "signature": websafe_encode(signature),
                "userHandle": websafe_encode(user_handle or self.user_handle)}


def form_with(page, action, field=None):
    for form in forms_of(page):
        names = {f.get("name") for f in form["fields"]}
        if form["action"] == action and (field is None or field in names):
            return {f["name"]: f.get("value", "") for f in form["fields"]
                    if f.get("name") and f.get("type", "text") == "hidden"}
    raise AssertionError(f"no form posting to {action}: {page[:800]}")


class Person:
    """A platform account and an HTTP client acting for it from an address of its own."""

    def __init__(self, server, relying_party):
        self.server = server
        self.rp = relying_party
        self.email = f"passkey-{uuid.uuid4().hex[:10]}@interop.example"
        self.password = "interop-password"
        self.user_id = server.add_user(self.email, password=self.password)
        self.address = f"198.51.100.{next(_addresses)}"
        self.authenticator = SoftwareAuthenticator(relying_party["id"])

    def session(self):
        session = requests.Session()
        session.headers.update({"X-Real-IP": self.address})
        return session

    def _options(self, session, path, data=None):
        response = session.post(self.server.url + path, data=data or {}, headers={"Origin": self.rp["origin"]},
                                allow_redirects=False, timeout=30)
        assert response.status_code == 200, f"{response.status_code}: {response.text[:500]}"
        return response.json()

    def signed_in_with_password(self):
        session = self.session()
        page = session.get(self.server.url + "/login", timeout=30)
        data = form_with(page.text, "/login", "password")
        data.update(email=self.email, password=self.password)
        response = session.post(self.server.url + "/login", data=data, allow_redirects=False, timeout=30)
        assert response.status_code in (302, 303), response.text[:500]
        return session

    def register(self, session=None, **tamper):
        """Adds a passkey from Your Account; returns the server's answer to the attestation."""
        session = session or self.signed_in_with_password()
        account = session.get(self.server.url + "/account", timeout=30)
        assert account.status_code == 200
        form = form_with(account.text, "/account/passkeys", "passkey_credential")
        options = self._options(session, "/account/passkeys/options", form)
        origin = tamper.pop("origin", self.rp["origin"])
        credential = self.authenticator.create(options, origin, **tamper)
        form.update(passkey_credential=json.dumps(credential), passkey_name="fido2 interop")
        return session.post(self.server.url + "/account/passkeys", data=form, allow_redirects=False, timeout=30)

    def sign_in(self, options=None, **tamper):
        """Signs a fresh session in with the passkey (the discoverable flow of /login); returns
        the session, signed in or not."""
        session = self.session()
        login = session.get(self.server.url + "/login", timeout=30)
        form = form_with(login.text, "/login/passkey")
        options = options or self.sign_in_options(session)
        origin = tamper.pop("origin", self.rp["origin"])
        form["passkey_credential"] = json.dumps(self.authenticator.get(options, origin, **tamper))
        session.last = session.post(self.server.url + "/login/passkey", data=form, allow_redirects=False, timeout=30)
        return session

    def sign_in_options(self, session):
        return self._options(session, "/passkeys/sign-in/options")

    def is_signed_in(self, session):
        response = session.get(self.server.url + "/account", allow_redirects=False, timeout=30)
        return response.status_code == 200 and self.email in response.text


def passkeys_of(server, user_id):
    """The stored sign counter per credential, read from the server's SQLite file."""
    with sqlite3.connect(server.database.removeprefix("sqlite:"), timeout=30) as db:
        return dict(db.execute("SELECT credential_id, sign_count FROM passkey_credentials WHERE user_id = ?",
                               (user_id,)).fetchall())


def audit_details(server, user_id, action):
    with sqlite3.connect(server.database.removeprefix("sqlite:"), timeout=30) as db:
        return [row[0] for row in db.execute(
            "SELECT details FROM audit_log WHERE subject = ? AND action = ? ORDER BY sequence", (user_id, action))]


@pytest.fixture
def person(server, relying_party):
    return Person(server, relying_party)


@pytest.fixture
def registered(person):
    response = person.register()
    assert response.status_code == 303, response.text[:500]
    assert response.headers["Location"].startswith("/account")
    return person


def refused(person, session):
    """The sign-in page again (200, no session): the same answer whatever was wrong."""
    assert session.last.status_code == 200, session.last.status_code
    assert "passkey-form" in session.last.text
    assert not person.is_signed_in(session)
    return True


def test_registered_passkey_signs_a_fresh_session_in(registered, server):
    person = registered
    assert list(passkeys_of(server, person.user_id)) == [person.authenticator.credential_id]
    session = person.sign_in()
    assert session.last.status_code == 303, session.last.text[:500]
    assert person.is_signed_in(session)
    assert passkeys_of(server, person.user_id)[person.authenticator.credential_id] == 1


def test_packed_self_attestation_is_accepted(person, server):
    response = person.register(fmt="packed")
    assert response.status_code == 303, response.text[:500]
    assert person.is_signed_in(person.sign_in())


def test_registration_from_another_origin_is_refused(person, server):
    response = person.register(origin="https://evil.example")
    assert response.status_code == 400
    assert passkeys_of(server, person.user_id) == {}
    assert person.register().status_code == 303   # the same steps from the right origin


def test_registration_without_user_verification_is_refused(person, server):
    assert person.register(flags=FLAGS.UP).status_code == 400
    assert passkeys_of(server, person.user_id) == {}


def test_wrong_origin_is_refused(registered):
    person = registered
    assert refused(person, person.sign_in(origin="https://evil.example"))
    assert refused(person, person.sign_in(origin=person.rp["origin"].replace("http://", "https://")))
    assert person.is_signed_in(person.sign_in())


def test_wrong_rp_id_hash_is_refused(registered):
    person = registered
    assert refused(person, person.sign_in(rp_id="evil.example"))
    assert person.is_signed_in(person.sign_in())


def test_user_verification_off_is_refused(registered):
    person = registered
    assert refused(person, person.sign_in(flags=FLAGS.UP))
    assert person.is_signed_in(person.sign_in())


def test_replayed_challenge_is_refused(registered):
    person = registered
    options = person.sign_in_options(person.session())
    assert person.is_signed_in(person.sign_in(options=options))
    # A new, correctly signed assertion (its counter one higher) over the used challenge.
    assert refused(person, person.sign_in(options=options))
    assert person.is_signed_in(person.sign_in())


def test_sign_counter_going_backwards_is_refused_and_audited(registered, server):
    person = registered
    assert person.is_signed_in(person.sign_in(counter=5))
    assert refused(person, person.sign_in(counter=3))
    assert refused(person, person.sign_in(counter=5))   # not growing is going back too
    assert passkeys_of(server, person.user_id)[person.authenticator.credential_id] == 5
    reasons = audit_details(server, person.user_id, "user.passkey_refused")
    assert len(reasons) == 2 and all("signCountRegressed" in r for r in reasons), reasons
    assert person.is_signed_in(person.sign_in(counter=6))


def test_another_persons_credential_id_or_user_handle_is_refused(server, relying_party):
    alice, bob = Person(server, relying_party), Person(server, relying_party)
    assert alice.register().status_code == 303 and bob.register().status_code == 303
    a, b = alice.authenticator, bob.authenticator
    # Bob's key and user handle, naming Alice's credential.
    assert refused(bob, bob.sign_in(credential_id=a.credential_id))
    # Bob's credential and key, naming Alice's user handle.
    assert refused(alice, bob.sign_in(user_handle=a.user_handle))
    # Alice's credential id and user handle, signed by Bob's key.
    assert refused(alice, bob.sign_in(credential_id=a.credential_id, user_handle=a.user_handle))
    assert bob.is_signed_in(bob.sign_in()) and alice.is_signed_in(alice.sign_in())

