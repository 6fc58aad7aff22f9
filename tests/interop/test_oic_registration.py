"""pyoidc (`oic`) registers itself dynamically (RFC 7591) with an initial access token from
`portico registration-token create`, then signs a person in with the authorization code flow
and PKCE, configured only from discovery and its registration answer."""

import urllib.parse

from oic import rndstr
from oic.oic import Client
from oic.oic.message import AuthorizationResponse, RegistrationResponse
from oic.utils.authn.client import CLIENT_AUTHN_METHOD

REDIRECT_URI = "https://oic-rp.interop.example/callback"


def test_oic_registers_dynamically_and_signs_a_person_in(portico, person):
    token = portico.json_command("registration-token", "create", "--uses", "1")["token"]
    client = Client(client_authn_method=CLIENT_AUTHN_METHOD)
    client.provider_config(portico.url)
    assert client.provider_info["registration_endpoint"] == portico.url + "/oauth/register"

    registration = client.register(
        client.provider_info["registration_endpoint"], registration_token=token,
        redirect_uris=[REDIRECT_URI], client_name="pyoidc RP", response_types=["code"],
        grant_types=["authorization_code", "refresh_token"], token_endpoint_auth_method="client_secret_basic")
    assert isinstance(registration, RegistrationResponse)
    assert registration["client_id"] == client.client_id
    assert client.client_secret
    assert registration["registration_client_uri"] == portico.url + "/oauth/register/" + client.client_id

    # The token had one use: a second registration is refused.
    second = Client(client_authn_method=CLIENT_AUTHN_METHOD)
    second.provider_config(portico.url)
    try:
        second.register(second.provider_info["registration_endpoint"], registration_token=token,
                        redirect_uris=[REDIRECT_URI])
        raise AssertionError("a used-up initial access token registered a client")
    except Exception as error:  # oic raises RegistrationError or a plain exception on 401
        assert "invalid_token" in str(error) or "401" in str(error), error

    state, nonce = rndstr(), rndstr()
    challenge, verifier = client.add_code_challenge()
    request = client.construct_AuthorizationRequest(request_args={
        "response_type": "code", "scope": ["openid", "profile"], "state": state, "nonce": nonce,
        "redirect_uri": REDIRECT_URI, "client_id": client.client_id, **challenge})
    url = request.request(client.authorization_endpoint)
    back = person.authorize(url, REDIRECT_URI)
    response = client.parse_response(
        AuthorizationResponse, info=urllib.parse.urlparse(back).query, sformat="urlencoded")
    assert response["state"] == state

    tokens = client.do_access_token_request(
        state=state, request_args={"code": response["code"], "code_verifier": verifier,
                                   "redirect_uri": REDIRECT_URI},
        authn_method="client_secret_basic")
    assert "error" not in tokens, tokens.to_dict()
    assert tokens["id_token"]["aud"] == [client.client_id]
    assert tokens["id_token"]["nonce"] == nonce
    userinfo = client.do_user_info_request(state=state)
    assert userinfo["sub"] == tokens["id_token"]["sub"]
