"""The FAPI 2.0 Security Profile end to end, with an independent client: requests-oauth2client
(PyPI) speaks PAR, `private_key_jwt`, PKCE S256, DPoP (with `dpop_jkt` at PAR) and RFC 9207's
`iss`, against a real `portico serve` and a client made with `portico client add --profile
fapi2`. joserfc verifies the tokens against the provider's JWKS."""

import json

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet
from jwskate import Jwk
from requests_oauth2client import DPoPToken, OAuth2Client

REDIRECT_URI = "http://127.0.0.1/fapi/callback"


@pytest.fixture(scope="module")
def fapi_client(portico, tmp_path_factory):
    """A FAPI 2.0 client: its only credential an EC key, pushed requests and DPoP required."""
    key = Jwk.generate(alg="ES256", kid="fapi-interop")
    jwks = tmp_path_factory.mktemp("fapi") / "jwks.json"
    jwks.write_text(json.dumps({"keys": [key.public_jwk().to_dict()]}))
    created = portico.add_client("--name", "FAPI Interop", "--redirect-uri", REDIRECT_URI, "--jwks", str(jwks),
                                 "--profile", "fapi2")
    assert "client_secret" not in created
    return created["client_id"], key


def oauth_client(metadata, client_id, key):
    return OAuth2Client.from_discovery_endpoint(
        issuer=metadata["issuer"], client_id=client_id, private_key=key, redirect_uri=REDIRECT_URI,
        dpop_bound_access_tokens=True, testing=True)


def test_fapi2_code_flow_with_par_dpop_and_private_key_jwt(metadata, fapi_client, person):
    client_id, key = fapi_client
    client = oauth_client(metadata, client_id, key)
    request = client.authorization_request(scope="openid profile offline_access")
    pushed = client.pushed_authorization_request(request)
    callback = person.authorize(pushed.uri, REDIRECT_URI)
    # validate_callback checks state and, as discovery says it is sent, iss (RFC 9207).
    response = request.validate_callback(callback)
    # validate=False: requests-oauth2client 1.8.0's own ID-token check cannot copy a DPoPToken
    # (TypeError, missing _dpop_key); joserfc checks the ID token below instead.
    token = client.authorization_code(response, validate=False)
    assert isinstance(token, DPoPToken)
    assert token.token_type == "DPoP"

    # The tokens, verified independently against the provider's published keys.
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())
    access = jwt.decode(str(token.access_token), keys)
    assert access.claims["iss"] == metadata["issuer"]
    assert access.claims["client_id"] == client_id
    assert access.claims["cnf"] == {"jkt": token.dpop_key.private_key.thumbprint()}
    # FAPI 2.0 §5.4.1 rules RS256 out: the profile's ID tokens are PS256 (joserfc must be
    # told to accept PS256, which it does not by default).
    identity = jwt.decode(str(token.id_token), keys, algorithms=["PS256"])
    assert identity.header["alg"] == "PS256"
    assert identity.claims["aud"] in (client_id, [client_id])
    assert identity.claims["iss"] == metadata["issuer"]
    assert identity.claims["nonce"] == request.nonce

    # Userinfo with a proof of the key (the library's DPoP auth), and never as a bearer token.
    userinfo = requests.get(metadata["userinfo_endpoint"], auth=token, timeout=30)
    assert userinfo.status_code == 200, userinfo.text
    assert userinfo.json()["sub"] == identity.claims["sub"]
    bearer = requests.get(metadata["userinfo_endpoint"], timeout=30,
                          headers={"Authorization": f"Bearer {token.access_token}"})
    assert bearer.status_code == 401

    # The refresh, with a new proof of the same key, is bound again.
    refreshed = client.refresh_token(token, dpop_key=token.dpop_key)
    assert isinstance(refreshed, DPoPToken)
    fresh = jwt.decode(str(refreshed.access_token), keys)
    assert fresh.claims["cnf"] == access.claims["cnf"]


def test_fapi2_refuses_an_unpushed_request_and_a_bearer_token_request(metadata, fapi_client):
    client_id, key = fapi_client
    client = oauth_client(metadata, client_id, key)
    # Not pushed: an error page, never a redirect to the client.
    plain = requests.get(str(client.authorization_request(scope="openid").uri), allow_redirects=False, timeout=30)
    assert plain.status_code == 400
    assert "Location" not in plain.headers
