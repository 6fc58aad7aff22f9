"""PS256 (RSASSA-PSS, the RSA algorithm FAPI 2.0 §5.4 allows) with independent JOSE code,
against a real `portico serve` and a client made with `portico client add --jwks FILE
--id-token-alg PS256`: Authlib signs the PS256 client assertions (its RFC 7523 code), joserfc
makes the RSA key and signs the PS256 request object and DPoP proof, and joserfc verifies the
PS256 ID token against the provider's JWKS."""

import base64
import hashlib
import json
import secrets
import time
import urllib.parse
import uuid

import pytest
import requests
from authlib.oauth2.rfc7523 import private_key_jwt_sign
from joserfc import jws, jwt
from joserfc.jwk import KeySet, RSAKey

REDIRECT_URI = "http://127.0.0.1/ps256/callback"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
KID = "ps256-interop"


@pytest.fixture(scope="module")
def ps256_client(portico, tmp_path_factory):
    """A client whose only credential is an RSA key for PS256, and whose ID tokens are PS256."""
    key = RSAKey.generate_key(2048, parameters={"kid": KID, "alg": "PS256", "use": "sig"})
    jwks = tmp_path_factory.mktemp("ps256") / "jwks.json"
    jwks.write_text(json.dumps({"keys": [key.as_dict(private=False)]}))
    created = portico.add_client("--name", "PS256 Interop", "--redirect-uri", REDIRECT_URI, "--jwks", str(jwks),
                                 "--id-token-alg", "PS256")
    assert "client_secret" not in created
    return created["client_id"], key


def assertion_for(client_id, key, audience):
    return private_key_jwt_sign(key, client_id=client_id, token_endpoint=audience, alg="PS256",
                                claims={"exp": int(time.time()) + 60}, header={"kid": KID})


def header_of(token):
    encoded = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))


def dpop_proof(key, method, url):
    """A DPoP proof (RFC 9449 §4.2) signed PS256 by joserfc, with the RSA public key in `jwk`."""
    public = {name: value for name, value in key.as_dict(private=False).items() if name in ("kty", "n", "e")}
    header = {"typ": "dpop+jwt", "alg": "PS256", "jwk": public}
    claims = {"jti": uuid.uuid4().hex, "htm": method, "htu": url, "iat": int(time.time())}
    return jwt.encode(header, claims, key, algorithms=["PS256"])


def test_discovery_lists_ps256(metadata):
    for name in ("id_token_signing_alg_values_supported", "token_endpoint_auth_signing_alg_values_supported",
                 "request_object_signing_alg_values_supported", "dpop_signing_alg_values_supported"):
        assert "PS256" in metadata[name], name
    keys = requests.get(metadata["jwks_uri"], timeout=30).json()["keys"]
    assert [key["kty"] for key in keys if key["alg"] == "PS256"] == ["RSA"]


def test_ps256_par_jar_code_flow_dpop_and_id_token(metadata, ps256_client, person):
    client_id, key = ps256_client
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    nonce = secrets.token_urlsafe(12)
    now = int(time.time())
    request_object = jwt.encode(
        {"alg": "PS256", "kid": KID, "typ": "oauth-authz-req+jwt"},
        {"iss": client_id, "aud": metadata["issuer"], "exp": now + 300, "nbf": now, "iat": now,
         "jti": uuid.uuid4().hex, "client_id": client_id, "response_type": "code", "redirect_uri": REDIRECT_URI,
         "scope": "openid profile", "state": "ps256-state", "nonce": nonce, "code_challenge": challenge,
         "code_challenge_method": "S256"},
        key, algorithms=["PS256"])
    assert header_of(request_object)["alg"] == "PS256"
    endpoint = metadata["pushed_authorization_request_endpoint"]
    assertion = assertion_for(client_id, key, endpoint)
    assert header_of(assertion)["alg"] == "PS256"
    pushed = requests.post(endpoint, data={
        "client_id": client_id, "request": request_object, "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion}, timeout=30)
    assert pushed.status_code == 201, pushed.text

    url = metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(
        {"client_id": client_id, "request_uri": pushed.json()["request_uri"]})
    callback = person.authorize(url, REDIRECT_URI)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(callback).query)
    assert query["state"] == ["ps256-state"]

    token_endpoint = metadata["token_endpoint"]
    proof_key = RSAKey.generate_key(2048)
    response = requests.post(token_endpoint, headers={"DPoP": dpop_proof(proof_key, "POST", token_endpoint)}, data={
        "grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": REDIRECT_URI,
        "code_verifier": verifier, "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion_for(client_id, key, token_endpoint)}, timeout=30)
    assert response.status_code == 200, response.text
    token = response.json()
    assert token["token_type"] == "DPoP"

    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())
    access = jwt.decode(token["access_token"], keys)
    assert access.claims["cnf"] == {"jkt": proof_key.thumbprint()}

    id_header = header_of(token["id_token"])
    assert id_header["alg"] == "PS256"
    published = keys.get_by_kid(id_header["kid"])
    assert published.as_dict()["alg"] == "PS256"
    identity = jwt.decode(token["id_token"], published, algorithms=["PS256"])
    assert identity.claims["aud"] in (client_id, [client_id])
    assert identity.claims["iss"] == metadata["issuer"]
    assert identity.claims["nonce"] == nonce
    # Not an RS256 token in disguise: the RS256 key of the JWKS does not verify it.
    rs256 = [k for k in keys.keys if k.as_dict().get("alg") == "RS256"]
    assert rs256
    with pytest.raises(Exception):
        jws.deserialize_compact(token["id_token"], rs256[0], algorithms=["PS256"])


def test_a_tampered_ps256_assertion_is_invalid_client(metadata, ps256_client):
    client_id, key = ps256_client
    endpoint = metadata["pushed_authorization_request_endpoint"]
    assertion = assertion_for(client_id, key, endpoint)
    header, payload, signature = assertion.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[-1] ^= 1
    tampered = ".".join([header, payload, base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()])
    refused = requests.post(endpoint, data={
        "client_id": client_id, "response_type": "code", "redirect_uri": REDIRECT_URI, "scope": "openid",
        "code_challenge": "x" * 43, "code_challenge_method": "S256",
        "client_assertion_type": ASSERTION_TYPE, "client_assertion": tampered}, timeout=30)
    assert refused.status_code == 401
    assert refused.json()["error"] == "invalid_client"
