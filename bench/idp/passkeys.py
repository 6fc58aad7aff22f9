#!/usr/bin/env python3
"""The passkey sign-in figure of bench/idp (issue 26), driven by bench/idp/passkeys.sh.

  passkeys.py BASE DATABASE PORTICO_BIN   (environment: WORKERS, CREDENTIALS, BENCH_SECONDS)

Makes CREDENTIALS people with `portico user add`, signs each in with the password once and
registers a passkey for them from Your Account (the page's own endpoints, attestation `none`,
an ES256 key held here). Then WORKERS processes, each with its own keep-alive connection and
its share of the credentials, sign in for BENCH_SECONDS: POST /passkeys/sign-in/options (a fresh
sealed challenge, nothing stored), an assertion signed here, POST /login/passkey (every check of
WebAuthn §7.2, the challenge's single use recorded, the counter's compare-and-swap, a new
session): a 303 is a sign-in. Then the
same workers sign in with passwords through POST /login for BENCH_SECONDS (Argon2id-bound), so both
figures come from one client on one server in one run. No consent: there is no app. Each
figure is also given per second of the server's own CPU time (SERVER_PID, from /proc), which
is what `openssl speed` reports too, so a loaded machine moves it much less.

Every request names the client in X-Real-IP (the server trusts loopback for it): sign-ins
count against the per-address throttle, and each worker rotates through addresses of its own
so that a benchmark does not measure the throttle. Prints `KEY value` lines for the shell.
Needs `cryptography` (the project venv, scripts/python-env)."""

import base64
import hashlib
import html.parser
import http.client
import json
import multiprocessing
import os
import subprocess
import sys
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

PASSWORD = "bench passkeys lantern violet"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor_head(major, value):
    """A CBOR item head (RFC 8949 §3): enough for the attestation object and COSE key here."""
    if value < 24:
        return bytes([major << 5 | value])
    if value < 256:
        return bytes([major << 5 | 24, value])
    return bytes([major << 5 | 25]) + value.to_bytes(2, "big")


def cbor_int(value):
    return cbor_head(0, value) if value >= 0 else cbor_head(1, -1 - value)


def cbor_bytes(data):
    return cbor_head(2, len(data)) + data


def cbor_text(text):
    data = text.encode()
    return cbor_head(3, len(data)) + data


class Hidden(html.parser.HTMLParser):
    """The hidden fields of the form posting to `action`."""

    def __init__(self, action):
        super().__init__()
        self.action, self.inside, self.fields = action, False, {}

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "form":
            self.inside = attributes.get("action") == self.action and not self.fields
        elif tag == "input" and self.inside and attributes.get("type") == "hidden" and attributes.get("name"):
            self.fields[attributes["name"]] = attributes.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False


def hidden(page, action):
    parser = Hidden(action)
    parser.feed(page)
    return parser.fields


class Client:
    """One keep-alive connection with a cookie jar and an address."""

    def __init__(self, base, address):
        url = urllib.parse.urlsplit(base)
        self.origin = f"{url.scheme}://{url.netloc}"
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        self.cookies = {}
        self.address = address

    def send(self, method, path, fields=None, origin=False):
        headers = {"X-Real-IP": self.address}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if origin:
            headers["Origin"] = self.origin
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
        return response.status, text


class Passkey:
    """One ES256 credential: a resident key with user verification, counter from 1."""

    def __init__(self, rp_id):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.rp_hash = hashlib.sha256(rp_id.encode()).digest()
        self.handle = b""
        self.counter = 0

    def cose(self):
        numbers = self.key.public_key().public_numbers()
        return (cbor_head(5, 5) + cbor_int(1) + cbor_int(2) + cbor_int(3) + cbor_int(-7) + cbor_int(-1) + cbor_int(1)
                + cbor_int(-2) + cbor_bytes(numbers.x.to_bytes(32, "big"))
                + cbor_int(-3) + cbor_bytes(numbers.y.to_bytes(32, "big")))

    def client_data(self, kind, challenge, origin):
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}).encode()

    def register(self, options, origin):
        self.handle = unb64(options["user"]["id"])
        client_data = self.client_data("webauthn.create", options["challenge"], origin)
        attested = b"\0" * 16 + len(self.credential_id).to_bytes(2, "big") + self.credential_id + self.cose()
        auth_data = self.rp_hash + bytes([0x45]) + (0).to_bytes(4, "big") + attested   # UP UV AT
        attestation = (cbor_head(5, 3) + cbor_text("fmt") + cbor_text("none") + cbor_text("attStmt")
                       + cbor_head(5, 0) + cbor_text("authData") + cbor_bytes(auth_data))
        return {"id": b64(self.credential_id), "clientDataJSON": b64(client_data),
                "attestationObject": b64(attestation)}

    def assert_(self, options, origin):
        self.counter += 1
        client_data = self.client_data("webauthn.get", options["challenge"], origin)
        auth_data = self.rp_hash + bytes([0x05]) + self.counter.to_bytes(4, "big")   # UP UV
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64(self.credential_id), "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data), "signature": b64(signature), "userHandle": b64(self.handle)}


def setup(base, database, binary, count):
    """People with a password each, and a passkey registered for each; returns (emails, passkeys)."""
    rp_id = urllib.parse.urlsplit(base).hostname
    emails, passkeys = [], []
    for i in range(count):
        email = f"passkey{i}@bench.example"
        subprocess.run([binary, "user", "add", "--email", email, "--name", f"Bench {i}", "--password-stdin",
                        "--database", database], input=PASSWORD + "\n", text=True, check=True, capture_output=True)
        client = Client(base, f"10.1.0.{i % 250 + 1}")
        _, page = client.send("GET", "/login")
        fields = hidden(page, "/login")
        fields.update(email=email, password=PASSWORD)
        status, text = client.send("POST", "/login", fields, origin=True)
        assert status == 303, f"password sign-in: {status} {text[:300]}"
        _, account = client.send("GET", "/account")
        form = hidden(account, "/account/passkeys")
        status, text = client.send("POST", "/account/passkeys/options", form, origin=True)
        assert status == 200, f"registration options: {status} {text[:300]}"
        passkey = Passkey(rp_id)
        form["passkey_credential"] = json.dumps(passkey.register(json.loads(text), client.origin))
        status, text = client.send("POST", "/account/passkeys", form, origin=True)
        assert status == 303, f"registration: {status} {text[:300]}"
        emails.append(email)
        passkeys.append(passkey)
    return emails, passkeys


def passkey_worker(base, worker, passkeys, seconds, results):
    client = Client(base, f"10.2.{worker}.1")
    _, page = client.send("GET", "/login")
    form = hidden(page, "/login/passkey")
    jar = dict(client.cookies)   # the CSRF cookie only: every sign-in is a new browser's
    done = failed = 0
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        passkey = passkeys[n % len(passkeys)]
        client.address = f"10.2.{worker}.{n % 250 + 1}"
        n += 1
        status, text = client.send("POST", "/passkeys/sign-in/options", {}, origin=True)
        if status != 200:
            failed += 1
            continue
        fields = dict(form, passkey_credential=json.dumps(passkey.assert_(json.loads(text), client.origin)))
        status, _ = client.send("POST", "/login/passkey", fields, origin=True)
        client.cookies = dict(jar)
        if status == 303:
            done += 1
        else:
            failed += 1
    results.put((done, failed))


def password_worker(base, worker, emails, seconds, results):
    client = Client(base, f"10.3.{worker}.1")
    _, page = client.send("GET", "/login")
    form = hidden(page, "/login")
    jar = dict(client.cookies)
    done = failed = 0
    deadline = time.monotonic() + seconds
    n = worker
    while time.monotonic() < deadline:
        client.address = f"10.3.{worker}.{n % 250 + 1}"
        fields = dict(form, email=emails[n % len(emails)], password=PASSWORD)
        n += 1
        status, _ = client.send("POST", "/login", fields, origin=True)
        client.cookies = dict(jar)
        if status == 303:
            done += 1
        else:
            failed += 1
    results.put((done, failed))


def server_cpu():
    """The server's user + system CPU seconds so far (/proc), or None without SERVER_PID."""
    pid = os.environ.get("SERVER_PID")
    if not pid:
        return None
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(target, base, workers, shares, seconds):
    """Sign-ins per second of wall time, counts, and per second of the server's CPU time."""
    cpu_before = server_cpu()
    results = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=target, args=(base, w, shares[w], seconds, results))
                 for w in range(workers)]
    started = time.monotonic()
    for process in processes:
        process.start()
    totals = [results.get() for _ in processes]
    for process in processes:
        process.join()
    elapsed = time.monotonic() - started
    done = sum(t[0] for t in totals)
    failed = sum(t[1] for t in totals)
    cpu = server_cpu() - cpu_before if cpu_before is not None else 0
    return done / elapsed, done, failed, (done / cpu if cpu > 0 else 0)


def main():
    base, database, binary = sys.argv[1:4]
    workers = int(os.environ.get("WORKERS", "4"))
    count = int(os.environ.get("CREDENTIALS", "16"))
    seconds = float(os.environ.get("BENCH_SECONDS", "10"))
    emails, passkeys = setup(base, database, binary, count)
    shares = [passkeys[w::workers] for w in range(workers)]
    rate, done, failed, per_cpu = run(passkey_worker, base, workers, shares, seconds)
    print(f"PASSKEY_RATE {rate:.1f}\nPASSKEY_DONE {done}\nPASSKEY_FAILED {failed}\nPASSKEY_PER_CPU {per_cpu:.1f}")
    rate, done, failed, per_cpu = run(password_worker, base, workers, [emails] * workers, seconds)
    print(f"PASSWORD_RATE {rate:.1f}\nPASSWORD_DONE {done}\nPASSWORD_FAILED {failed}\nPASSWORD_PER_CPU {per_cpu:.1f}")


if __name__ == "__main__":
    main()
