"""A Client ID Metadata Document client from an independent library (Authlib): its client_id is
the https URL of its metadata, served by a real https server on loopback with a certificate made
for the test. A real `portico serve --allow-loopback-client-metadata` (trusting that certificate
through OpenSSL's SSL_CERT_FILE) fetches the document, shows the unverified-app warning, and the
library finishes the code flow with PKCE as a public client; the ID token's audience is the URL."""

import http.server
import json
import os
import pathlib
import ssl
import subprocess
import tempfile
import threading

import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.jwk import KeySet

from conftest import Portico, PersonAtBrowser

REDIRECT_URI = "http://127.0.0.1/cimd/callback"


@pytest.fixture(scope="module")
def document_server():
    """An https server on 127.0.0.1 answering /client.json with the client's metadata."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix="portico-cimd-"))
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        cwd=directory, check=True, capture_output=True)
    documents = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = documents.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / "cert.pem", directory / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    client_id = f"https://127.0.0.1:{server.server_address[1]}/client.json"
    documents["/client.json"] = json.dumps({
        "client_id": client_id, "client_name": "Authlib Agent", "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }).encode()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield client_id, directory / "cert.pem"
    server.shutdown()


@pytest.fixture(scope="module")
def cimd_portico(portico_binary, document_server):
    """A `portico serve` that may fetch documents from loopback and trusts the test's certificate."""
    _, certificate = document_server
    previous = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = str(certificate)
    try:
        instance = Portico(portico_binary, "portico-cimd-", "--allow-loopback-client-metadata")
    finally:
        if previous is None:
            del os.environ["SSL_CERT_FILE"]
        else:
            os.environ["SSL_CERT_FILE"] = previous
    yield instance
    instance.stop()


def test_authlib_signs_a_person_in_with_a_metadata_document_client_id(cimd_portico, document_server):
    client_id, _ = document_server
    metadata = requests.get(cimd_portico.url + "/.well-known/openid-configuration", timeout=30).json()
    assert metadata["client_id_metadata_document_supported"] is True
    cimd_portico.add_user("agent-person@interop.example")
    person = PersonAtBrowser("agent-person@interop.example", "interop-password")

    session = OAuth2Session(
        client_id, None, scope="openid profile", redirect_uri=REDIRECT_URI, code_challenge_method="S256",
        token_endpoint_auth_method="none")
    verifier = generate_token(64)
    nonce = generate_token(24)
    url, _ = session.create_authorization_url(
        metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    callback = person.authorize(url, REDIRECT_URI)
    assert any("Portico has not verified this app." in page.text for page in person.pages)
    token = session.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    assert token["token_type"].lower() == "bearer"

    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], timeout=30).json())
    claims = jwt.decode(token["id_token"], keys).claims
    assert claims["aud"] == client_id
    assert claims["iss"] == metadata["issuer"]
    assert claims["nonce"] == nonce

    # A redirect URI the document does not list: a page, never a redirect to it.
    other, _ = session.create_authorization_url(
        metadata["authorization_endpoint"], code_verifier=verifier, redirect_uri="http://127.0.0.1/elsewhere")
    refused = requests.get(other, allow_redirects=False, timeout=30)
    assert refused.status_code == 400 and "Location" not in refused.headers
