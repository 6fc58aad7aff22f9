"""A standard OAuth 2.1 / OpenID Connect client (Authlib), configured only from Portico's
discovery document, against a real `portico serve`: code flow with PKCE, ID token validation
against the JWKS, userinfo and profile, refresh with rotation, revocation and introspection,
client credentials, and a public client."""

import urllib.parse
import uuid
import warnings

import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session

with warnings.catch_warnings():
    # Authlib's own JOSE (deprecated in favour of joserfc, still shipped) validates the ID token.
    warnings.simplefilter("ignore")
    from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken

REDIRECT_URI = "http://127.0.0.1/interop/callback"
SCOPES = "openid profile email postal_code offline_access"


@pytest.fixture(scope="module")
def confidential_client(portico):
    """A confidential client made with `portico client add --json` while the server runs."""
    # --introspection: the tests introspect with this client, which only resource servers may.
    created = portico.add_client("--name", "Authlib Interop", "--redirect-uri", REDIRECT_URI, "--introspection")
    assert set(created) == {"client_id", "client_secret"}
    return created


def oauth_session(client, metadata, scope=SCOPES):
    return OAuth2Session(
        client["client_id"], client.get("client_secret"), scope=scope, redirect_uri=REDIRECT_URI,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic" if client.get("client_secret") else "none")


def sign_in(session, metadata, person, decision="allow"):
    """Runs the authorization request through the person's browser; returns what the client
    needs to finish: the callback URL, state, PKCE verifier and nonce."""
    verifier = generate_token(64)
    nonce = generate_token(24)
    url, state = session.create_authorization_url(
        metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    callback = person.authorize(url, REDIRECT_URI, decision=decision)
    return callback, state, verifier, nonce


def validated_id_token(token, client_id, metadata, nonce):
    jwks = requests.get(metadata["jwks_uri"], timeout=30).json()
    claims = JsonWebToken(["RS256"]).decode(
        token["id_token"], JsonWebKey.import_key_set(jwks), claims_cls=CodeIDToken,
        claims_options={
            "iss": {"essential": True, "value": metadata["issuer"]},
            "aud": {"essential": True, "value": client_id},
            "nonce": {"essential": True, "value": nonce},
        },
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]})
    claims.validate(leeway=60)
    return claims


def test_discovery_document_is_complete(metadata, portico):
    assert metadata["issuer"] == portico.url
    for field in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint",
                  "revocation_endpoint", "introspection_endpoint"):
        assert metadata[field].startswith(portico.url), field
    assert "S256" in metadata["code_challenge_methods_supported"]
    assert "code" in metadata["response_types_supported"]
    assert {"openid", "profile", "email", "postal_code"} <= set(metadata["scopes_supported"])


def test_code_flow_with_pkce_id_token_userinfo_and_profile(portico, metadata, confidential_client, person):
    session = oauth_session(confidential_client, metadata)
    callback, state, verifier, nonce = sign_in(session, metadata, person)
    token = session.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, state=state, code_verifier=verifier)
    assert token["token_type"].lower() == "bearer"
    assert token.get("refresh_token")
    assert set(token["scope"].split()) >= {"openid", "profile"}

    claims = validated_id_token(token, confidential_client["client_id"], metadata, nonce)
    userinfo = session.get(metadata["userinfo_endpoint"], timeout=30)
    assert userinfo.status_code == 200
    assert userinfo.json()["sub"] == claims["sub"]
    assert userinfo.json().get("email") == person.email

    profile = session.get(portico.url + "/user/profile", timeout=30).json()
    assert profile["user_id"] == claims["sub"]
    assert profile["email"] == person.email
    assert profile["name"] == "Interop Person"
    assert profile["postal_code"] == "10115"


def test_the_code_is_bound_to_the_verifier_and_single_use(metadata, confidential_client, person):
    session = oauth_session(confidential_client, metadata)
    callback, state, verifier, _ = sign_in(session, metadata, person)
    with pytest.raises(OAuthError) as wrong:
        session.fetch_token(metadata["token_endpoint"], authorization_response=callback, state=state,
                            code_verifier=generate_token(64))
    assert wrong.value.error == "invalid_grant"
    token = session.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, state=state, code_verifier=verifier)
    assert token["access_token"]
    with pytest.raises(OAuthError) as replayed:
        session.fetch_token(metadata["token_endpoint"], authorization_response=callback, state=state,
                            code_verifier=verifier)
    assert replayed.value.error == "invalid_grant"


def test_refresh_rotates_and_revocation_shows_inactive(metadata, confidential_client, person):
    session = oauth_session(confidential_client, metadata)
    callback, state, verifier, nonce = sign_in(session, metadata, person)
    first = session.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, state=state, code_verifier=verifier)

    refreshed = session.refresh_token(metadata["token_endpoint"])
    assert refreshed["access_token"] != first["access_token"]
    assert refreshed["refresh_token"] != first["refresh_token"]
    assert session.get(metadata["userinfo_endpoint"], timeout=30).status_code == 200

    access_token = refreshed["access_token"]
    assert session.introspect_token(metadata["introspection_endpoint"], token=access_token).json()["active"] is True
    revoked = session.revoke_token(
        metadata["revocation_endpoint"], token=access_token, token_type_hint="access_token")
    assert revoked.status_code == 200
    assert session.introspect_token(metadata["introspection_endpoint"], token=access_token).json() == {"active": False}
    assert session.get(metadata["userinfo_endpoint"], timeout=30).status_code == 401

    refresh_token = refreshed["refresh_token"]
    assert session.introspect_token(
        metadata["introspection_endpoint"], token=refresh_token, token_type_hint="refresh_token").json()["active"]
    session.revoke_token(metadata["revocation_endpoint"], token=refresh_token, token_type_hint="refresh_token")
    assert session.introspect_token(
        metadata["introspection_endpoint"], token=refresh_token, token_type_hint="refresh_token").json() == {
            "active": False}
    with pytest.raises(OAuthError) as refused:
        session.refresh_token(metadata["token_endpoint"], refresh_token=refresh_token)
    assert refused.value.error == "invalid_grant"


def test_cancel_on_consent_returns_access_denied(metadata, confidential_client, person):
    # Authlib leaves error responses to the app (fetch_token only knows codes), so read them as
    # an app does: the error, the state it sent, and the issuer (RFC 9207) when advertised.
    session = oauth_session(confidential_client, metadata)
    callback, state, _, _ = sign_in(session, metadata, person, decision="deny")
    answer = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(callback).query))
    assert answer["error"] == "access_denied"
    assert answer["state"] == state
    assert "code" not in answer
    if metadata.get("authorization_response_iss_parameter_supported"):
        assert answer["iss"] == metadata["issuer"]


def test_public_client_with_pkce_only(portico, metadata, person):
    client = portico.add_client("--name", "Authlib Native", "--public", "--redirect-uri", REDIRECT_URI)
    assert set(client) == {"client_id"}
    session = oauth_session(client, metadata, scope="openid profile")
    callback, state, verifier, nonce = sign_in(session, metadata, person)
    token = session.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, state=state, code_verifier=verifier)
    claims = validated_id_token(token, client["client_id"], metadata, nonce)
    assert claims["sub"]


def test_client_credentials_for_a_product_scope(portico, metadata):
    # A scope name of its own, so the suite can run twice on one database (tests/cluster does).
    scope = f"interop:read-{uuid.uuid4().hex[:8]}"
    added = portico.command("scope", "add", scope, "--description", "Read interop data")
    assert added.returncode == 0, added.stderr
    client = portico.add_client(
        "--name", "Authlib Service", "--redirect-uri", REDIRECT_URI, "--grant", "client_credentials",
        "--scope", scope, "--introspection")
    session = OAuth2Session(client["client_id"], client["client_secret"], scope=scope)
    token = session.fetch_token(metadata["token_endpoint"], grant_type="client_credentials")
    assert token["scope"] == scope
    assert "refresh_token" not in token
    introspection = session.introspect_token(metadata["introspection_endpoint"], token=token["access_token"]).json()
    assert introspection["active"] is True
    assert introspection["client_id"] == client["client_id"]
