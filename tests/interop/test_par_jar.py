"""Pushed authorization requests (RFC 9126) with a signed request object (RFC 9101) and
`private_key_jwt` client authentication, against a real `portico serve`, by a client made with
`portico client add --jwks FILE --require-par`. Authlib signs the client assertions (its
RFC 7523 code, at the PAR endpoint and at the token endpoint through OAuth2Session); joserfc
makes the key and signs the request object."""

import base64
import hashlib
import json
import secrets
import time
import urllib.parse
import uuid

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT, private_key_jwt_sign
from joserfc import jwt
from joserfc.jwk import ECKey

REDIRECT_URI = "http://127.0.0.1/par/callback"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@pytest.fixture(scope="module")
def signed_client(portico, tmp_path_factory):
    """A client whose only credential is an EC key, which must push its requests."""
    key = ECKey.generate_key("P-256", parameters={"kid": "par-interop", "alg": "ES256", "use": "sig"})
    jwks = tmp_path_factory.mktemp("par") / "jwks.json"
    jwks.write_text(json.dumps({"keys": [key.as_dict(private=False)]}))
    created = portico.add_client("--name", "PAR Interop", "--redirect-uri", REDIRECT_URI, "--jwks", str(jwks),
                                 "--require-par")
    assert "client_secret" not in created
    return created["client_id"], key


def assertion_for(client_id, key, audience):
    # Authlib's assertions live an hour by default; Portico takes at most five minutes.
    return private_key_jwt_sign(key, client_id=client_id, token_endpoint=audience, alg="ES256",
                                claims={"exp": int(time.time()) + 60}, header={"kid": "par-interop"})


def request_object(client_id, key, metadata, **parameters):
    now = int(time.time())
    claims = {"iss": client_id, "aud": metadata["issuer"], "exp": now + 300, "nbf": now, "iat": now,
              "jti": uuid.uuid4().hex, "client_id": client_id, **parameters}
    header = {"alg": "ES256", "kid": "par-interop", "typ": "oauth-authz-req+jwt"}
    return jwt.encode(header, claims, key)


def push(metadata, client_id, key, **form):
    endpoint = metadata["pushed_authorization_request_endpoint"]
    return requests.post(endpoint, data={
        "client_id": client_id, "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion_for(client_id, key, endpoint), **form,
    }, timeout=30)


def test_discovery_advertises_par_and_request_objects(metadata):
    assert metadata["pushed_authorization_request_endpoint"] == metadata["issuer"] + "/oauth/par"
    assert metadata["require_pushed_authorization_requests"] is False
    assert metadata["request_parameter_supported"] is True
    assert "ES256" in metadata["request_object_signing_alg_values_supported"]


def test_par_jar_code_flow(metadata, signed_client, person):
    client_id, key = signed_client
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = secrets.token_urlsafe(8)

    # Not pushed: refused with a page, never a redirect.
    plain = requests.get(metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI, "scope": "openid",
        "code_challenge": challenge, "code_challenge_method": "S256"}), allow_redirects=False, timeout=30)
    assert plain.status_code == 400
    assert "Location" not in plain.headers

    signed = request_object(client_id, key, metadata, response_type="code", redirect_uri=REDIRECT_URI,
                            scope="openid profile", state=state, code_challenge=challenge,
                            code_challenge_method="S256")
    pushed = push(metadata, client_id, key, request=signed)
    assert pushed.status_code == 201, pushed.text
    assert pushed.headers["Cache-Control"] == "no-store"
    request_uri = pushed.json()["request_uri"]
    assert request_uri.startswith("urn:ietf:params:oauth:request_uri:")
    assert pushed.json()["expires_in"] == 60

    url = metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(
        {"client_id": client_id, "request_uri": request_uri})
    callback = person.authorize(url, REDIRECT_URI)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(callback).query)
    assert query["state"] == [state]
    assert query["iss"] == [metadata["issuer"]]

    session = OAuth2Session(client_id, key, scope="openid profile", redirect_uri=REDIRECT_URI,
                            token_endpoint_auth_method="private_key_jwt")
    session.register_client_auth_method(
        PrivateKeyJWT(metadata["token_endpoint"], claims={"exp": int(time.time()) + 60},
                      headers={"kid": "par-interop"}, alg="ES256"))
    token = session.fetch_token(metadata["token_endpoint"], code=query["code"][0], code_verifier=verifier)
    assert token["token_type"] == "Bearer"
    assert token["scope"] == "openid profile"
    assert "id_token" in token

    # The request_uri served once.
    again = requests.get(url, allow_redirects=False, timeout=30)
    assert again.status_code == 400
    assert "Location" not in again.headers


def test_par_refusals(metadata, signed_client):
    client_id, key = signed_client
    signed = request_object(client_id, key, metadata, response_type="code", redirect_uri=REDIRECT_URI,
                            scope="openid", code_challenge="x" * 43, code_challenge_method="S256")
    header, payload, signature = signed.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["scope"] = "openid email"
    forged = ".".join([header, base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode(),
                       signature])
    refused = push(metadata, client_id, key, request=forged)
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_request_object"
    unauthenticated = requests.post(metadata["pushed_authorization_request_endpoint"], data={
        "client_id": client_id, "request": signed}, timeout=30)
    assert unauthenticated.status_code == 401
    assert unauthenticated.json()["error"] == "invalid_client"
