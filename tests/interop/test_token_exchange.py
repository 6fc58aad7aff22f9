"""Token exchange (RFC 8693) against a real `portico serve`, spoken with plain `requests` the way
an app's own HTTP code would: OpenID Connect Native SSO between two apps of one vendor, and a
backend narrowing its access token to one resource server (RFC 8707). Every token issued is
verified with joserfc against the provider's JWKS."""

import base64
import hashlib
import secrets
import urllib.parse

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"
DEVICE_SECRET = "urn:openid:params:token-type:device-secret"
MAIL_REDIRECT = "http://127.0.0.1/mail/callback"
SHOP_REDIRECT = "http://127.0.0.1/shop/callback"
ORDERS = "https://orders.interop.example/api"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def verified(token, metadata, algorithms):
    """The claims of `token` after joserfc checked its signature against the JWKS."""
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())
    decoded = jwt.decode(token, keys, algorithms=algorithms)
    registry = jwt.JWTClaimsRegistry(iss={"essential": True, "value": metadata["issuer"]}, leeway=60)
    registry.validate(decoded.claims)
    return decoded.header, decoded.claims


def code_flow(person, metadata, client, redirect_uri, scope):
    """Signs the person in and redeems the code (PKCE S256) with plain requests."""
    verifier = secrets.token_urlsafe(48)
    challenge = b64url(hashlib.sha256(verifier.encode()).digest())
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect_uri, "scope": scope,
        "state": secrets.token_urlsafe(8), "code_challenge": challenge, "code_challenge_method": "S256",
    })
    callback = person.authorize(metadata["authorization_endpoint"] + "?" + query, redirect_uri)
    code = urllib.parse.parse_qs(urllib.parse.urlparse(callback).query)["code"][0]
    response = requests.post(metadata["token_endpoint"], data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier,
    }, auth=(client["client_id"], client["client_secret"]), timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module")
def vendor_apps(portico):
    grants = ["--grant", "authorization_code", "--grant", "refresh_token", "--grant", GRANT]
    mail = portico.add_client("--name", "Vendor Mail", "--redirect-uri", MAIL_REDIRECT, "--sso-group", "vendor",
                              *grants)
    calendar = portico.add_client("--name", "Vendor Calendar", "--public", "--redirect-uri",
                                  "com.vendor.calendar:/callback", "--sso-group", "vendor", *grants)
    return mail, calendar


def test_discovery_advertises_token_exchange_and_native_sso(metadata):
    assert GRANT in metadata["grant_types_supported"]
    assert metadata["native_sso_supported"] is True
    assert "device_sso" in metadata["scopes_supported"]


def test_native_sso_between_two_apps_of_one_vendor(portico, metadata, vendor_apps, person):
    mail, calendar = vendor_apps
    first = code_flow(person, metadata, mail, MAIL_REDIRECT, "openid profile device_sso")
    device_secret = first["device_secret"]
    header, id_claims = verified(first["id_token"], metadata, ["RS256"])
    assert header["alg"] == "RS256"
    assert id_claims["aud"] == mail["client_id"]
    assert id_claims["ds_hash"] == b64url(hashlib.sha256(device_secret.encode()).digest()[:16])
    sid = id_claims["sid"]

    # The calendar app (public, on the same device) gets tokens of its own without a page.
    response = requests.post(metadata["token_endpoint"], data={
        "grant_type": GRANT, "client_id": calendar["client_id"], "subject_token": first["id_token"],
        "subject_token_type": ID_TOKEN, "actor_token": device_secret, "actor_token_type": DEVICE_SECRET,
        "audience": metadata["issuer"],
    }, timeout=30)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert tokens["issued_token_type"] == ACCESS_TOKEN
    assert tokens["token_type"] == "Bearer"
    header, access = verified(tokens["access_token"], metadata, ["ES256"])
    assert header["typ"] == "at+jwt"
    assert access["client_id"] == calendar["client_id"] and access["sid"] == sid
    _, id_token = verified(tokens["id_token"], metadata, ["RS256"])
    assert id_token["aud"] == calendar["client_id"]
    assert id_token["sub"] == id_claims["sub"] and id_token["sid"] == sid
    userinfo = requests.get(metadata["userinfo_endpoint"],
                            headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=30)
    assert userinfo.status_code == 200 and userinfo.json()["sub"] == id_claims["sub"]

    # Revoking the device secret ends both apps' tokens.
    revoked = requests.post(metadata["revocation_endpoint"], data={
        "token": device_secret, "token_type_hint": "device_secret"},
        auth=(mail["client_id"], mail["client_secret"]), timeout=30)
    assert revoked.status_code == 200
    again = requests.post(metadata["token_endpoint"], data={
        "grant_type": GRANT, "client_id": calendar["client_id"], "subject_token": first["id_token"],
        "subject_token_type": ID_TOKEN, "actor_token": device_secret, "actor_token_type": DEVICE_SECRET,
        "audience": metadata["issuer"],
    }, timeout=30)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    for token in (first["access_token"], tokens["access_token"]):
        gone = requests.get(metadata["userinfo_endpoint"], headers={"Authorization": "Bearer " + token}, timeout=30)
        assert gone.status_code == 401


def test_a_backend_narrows_its_token_to_one_resource_server(portico, metadata, person):
    shop = portico.add_client("--name", "Shop Backend", "--redirect-uri", SHOP_REDIRECT, "--grant",
                              "authorization_code", "--grant", "refresh_token", "--grant", GRANT,
                              "--resource", ORDERS)
    first = code_flow(person, metadata, shop, SHOP_REDIRECT, "openid profile email")
    response = requests.post(metadata["token_endpoint"], data={
        "grant_type": GRANT, "subject_token": first["access_token"], "subject_token_type": ACCESS_TOKEN,
        "resource": ORDERS, "scope": "profile",
    }, auth=(shop["client_id"], shop["client_secret"]), timeout=30)
    assert response.status_code == 200, response.text
    narrowed = response.json()
    assert narrowed["issued_token_type"] == ACCESS_TOKEN
    assert narrowed["scope"] == "profile"
    assert "refresh_token" not in narrowed
    _, claims = verified(narrowed["access_token"], metadata, ["ES256"])
    # What the orders API checks before it serves the request.
    jwt.JWTClaimsRegistry(aud={"essential": True, "value": ORDERS}).validate(claims)
    assert claims["scope"] == "profile"
    _, original = verified(first["access_token"], metadata, ["ES256"])
    assert claims["exp"] <= original["exp"] and claims["sub"] == original["sub"]

    wider = requests.post(metadata["token_endpoint"], data={
        "grant_type": GRANT, "subject_token": first["access_token"], "subject_token_type": ACCESS_TOKEN,
        "scope": "profile postal_code",
    }, auth=(shop["client_id"], shop["client_secret"]), timeout=30)
    assert wider.status_code == 400 and wider.json()["error"] == "invalid_scope"
    elsewhere = requests.post(metadata["token_endpoint"], data={
        "grant_type": GRANT, "subject_token": first["access_token"], "subject_token_type": ACCESS_TOKEN,
        "resource": "https://payments.interop.example/api",
    }, auth=(shop["client_id"], shop["client_secret"]), timeout=30)
    assert elsewhere.status_code == 400 and elsewhere.json()["error"] == "invalid_target"
    # The provider's own userinfo refuses a token meant for the orders API.
    refused = requests.get(metadata["userinfo_endpoint"],
                           headers={"Authorization": "Bearer " + narrowed["access_token"]}, timeout=30)
    assert refused.status_code == 401
