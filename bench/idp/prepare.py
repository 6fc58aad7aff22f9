#!/usr/bin/env python3
"""Pre-steps of bench/idp/run.sh that need a running server (standard library only).

  prepare.py tokens  BASE SEED_DIR OUT_FILE   redeem the spare codes of the seed for
                                              access tokens (one per line in OUT_FILE)
  prepare.py login   BASE SEED_DIR OUT_FILE   walk /oauth/authorize -> /login like a
                                              browser and write the sign-in form's fields
                                              (sealed request, CSRF token and cookie) as
                                              shell assignments; then check that one POST
                                              /login with them signs in (303)
  prepare.py sso     BASE SEED_DIR OUT_FILE   redeem the Native SSO codes of the seed for
                                              the group's first app and write, one per
                                              line, the form fragment its ID token and
                                              device secret make for the exchange

The sealed pending request and the CSRF token are stateless on the server (a signed
request and an HMAC of the browser's CSRF cookie), so wrk can post the same form over
and over and every post is a genuine sign-in.
"""

import base64
import hashlib
import html.parser
import http.client
import json
import secrets
import sys
import urllib.parse


def read_env(seed_dir):
    env = {}
    with open(f"{seed_dir}/seed.env") as handle:
        for line in handle:
            key, _, value = line.strip().partition("=")
            if key:
                env[key] = value
    return env


def connect(base):
    url = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=30)


def basic(env):
    user = urllib.parse.quote(env["CLIENT_ID"], safe="")
    password = urllib.parse.quote(env["CLIENT_SECRET"], safe="")
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def redeem(base, seed_dir, codes_file="spare-codes.txt", client=("CLIENT_ID", "CLIENT_SECRET"), proof=None):
    """The token answers to the seed's codes in `codes_file`, each redeemed by `client`; with
    `proof` (a function making a DPoP proof for POST /oauth/token), each with a fresh proof."""
    env = read_env(seed_dir)
    authorization = basic({"CLIENT_ID": env[client[0]], "CLIENT_SECRET": env[client[1]]})
    with open(f"{seed_dir}/{codes_file}") as handle:
        codes = [line.strip() for line in handle if line.strip()]
    connection = connect(base)
    answers = []
    for code in codes:
        body = urllib.parse.urlencode({
            "grant_type": "authorization_code", "code": code,
            "redirect_uri": env["REDIRECT_URI"], "code_verifier": env["CODE_VERIFIER"],
        })
        headers = {"Authorization": authorization, "Content-Type": "application/x-www-form-urlencoded"}
        if proof is not None:
            headers["DPoP"] = proof()
        connection.request("POST", "/oauth/token", body, headers)
        response = connection.getresponse()
        payload = response.read()
        if response.status != 200:
            sys.exit(f"prepare.py: code redemption answered {response.status}: {payload[:300]!r}")
        answers.append(json.loads(payload))
    return answers


def mint_tokens(base, seed_dir, out_file, codes_file="spare-codes.txt", client=("CLIENT_ID", "CLIENT_SECRET")):
    sso = codes_file == "codes-sso.txt"
    tokens = []
    for answer in redeem(base, seed_dir, codes_file, client):
        if sso:
            tokens.append(urllib.parse.urlencode({
                "subject_token": answer["id_token"], "actor_token": answer["device_secret"]}))
        else:
            tokens.append(answer["access_token"])
    with open(out_file, "w") as handle:
        handle.write("\n".join(tokens) + "\n")
    print(f"minted {len(tokens)} {'Native SSO sign-ins' if sso else 'access tokens'}", file=sys.stderr)


def sso_sign_ins(base, seed_dir, out_file):
    mint_tokens(base, seed_dir, out_file, "codes-sso.txt", ("SSO_FIRST_ID", "SSO_SECRET"))


class FormFields(html.parser.HTMLParser):
    """Collects the named inputs of the first form posting to /login."""

    def __init__(self):
        super().__init__()
        self.fields = {}
        self.in_form = False
        self.done = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and not self.done and attributes.get("action") == "/login":
            self.in_form = True
        elif tag == "input" and self.in_form and attributes.get("type") == "hidden":
            self.fields[attributes.get("name")] = attributes.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form" and self.in_form:
            self.in_form = False
            self.done = True


def csrf_cookie(response):
    for header, value in response.getheaders():
        if header.lower() == "set-cookie" and value.startswith("portico_csrf="):
            return value.split(";", 1)[0].split("=", 1)[1]
    return None


def login_form(base, seed_dir, out_file):
    env = read_env(seed_dir)
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": env["CLIENT_ID"], "redirect_uri": env["REDIRECT_URI"],
        "scope": "openid profile", "state": "bench-state", "nonce": "bench-nonce",
        "code_challenge": challenge, "code_challenge_method": "S256",
    })
    connection = connect(base)
    connection.request("GET", "/oauth/authorize?" + query)
    response = connection.getresponse()
    response.read()
    location = response.getheader("Location") or ""
    if response.status not in (302, 303) or not location.split("?")[0].endswith("/login"):
        sys.exit(f"prepare.py: /oauth/authorize answered {response.status} to {location!r}, not the sign-in page")
    target = urllib.parse.urlsplit(location)
    connection.request("GET", target.path + "?" + target.query)
    response = connection.getresponse()
    page = response.read().decode("utf-8", "replace")
    cookie = csrf_cookie(response)
    parser = FormFields()
    parser.feed(page)
    fields = parser.fields
    if response.status != 200 or not cookie or "csrf_token" not in fields or "request" not in fields:
        sys.exit(f"prepare.py: the sign-in page ({response.status}) lacks the form fields or the CSRF cookie")

    # One real sign-in with these fields must succeed before wrk repeats it.
    body = urllib.parse.urlencode(dict(fields, email=f"user0@{env['EMAIL_DOMAIN']}", password=env["PASSWORD"]))
    connection.request("POST", "/login", body, {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"portico_csrf={cookie}",
    })
    response = connection.getresponse()
    response.read()
    if response.status not in (302, 303):
        sys.exit(f"prepare.py: a sign-in with the scraped form answered {response.status}, not a redirect")

    extra = {name: value for name, value in fields.items() if name not in ("csrf_token", "request")}
    with open(out_file, "w") as handle:
        handle.write(f"LOGIN_REQUEST={fields['request']}\n")
        handle.write(f"LOGIN_CSRF_TOKEN={fields['csrf_token']}\n")
        handle.write(f"LOGIN_CSRF_COOKIE={cookie}\n")
        handle.write(f"LOGIN_EXTRA_FIELDS={urllib.parse.urlencode(extra)}\n")
        handle.write(f"LOGIN_REDIRECT_STATUS={response.status}\n")
    print(f"sign-in form ready; a test sign-in answered {response.status} to "
          f"{(response.getheader('Location') or '').split('?')[0]}", file=sys.stderr)


def main():
    actions = {"tokens": mint_tokens, "login": login_form, "sso": sso_sign_ins}
    if len(sys.argv) != 5 or sys.argv[1] not in actions:
        sys.exit(__doc__)
    _, action, base, seed_dir, out_file = sys.argv
    actions[action](base, seed_dir, out_file)


if __name__ == "__main__":
    main()
