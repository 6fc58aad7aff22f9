"""A Shared Signals receiver for the tests: an RFC 8935 push endpoint on the standard library's
HTTP server that verifies every SET against the transmitter's JWKS with joserfc (signature,
`typ: secevent+jwt`, `iss`, `aud`, `iat`, a `jti` never seen before) before answering 202, and
keeps the events in arrival order. It can be stopped and started again on the same port (a
receiver down for a while), and can poll (RFC 8936) instead."""

import http.server
import json
import threading
import time

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

SET_TYPE = "secevent+jwt"
CAEP = "https://schemas.openid.net/secevent/caep/event-type/"
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
SSF = "https://schemas.openid.net/secevent/ssf/event-type/"


class SETVerifier:
    """Checks SETs as a receiver must (RFC 8417 §2, SSF 1.0 §4, RFC 8935 §2)."""

    def __init__(self, issuer, audience):
        self.issuer = issuer
        self.audience = audience
        self.seen = set()
        self.keys = None

    def verify(self, token, repeated_ok=False):
        if self.keys is None:
            configuration = requests.get(self.issuer + "/.well-known/ssf-configuration", timeout=10).json()
            self.keys = KeySet.import_key_set(requests.get(configuration["jwks_uri"], timeout=10).json())
        decoded = jwt.decode(token, self.keys, algorithms=["RS256", "ES256", "EdDSA", "PS256"])
        header, claims = decoded.header, decoded.claims
        assert header.get("typ") == SET_TYPE, header
        assert claims["iss"] == self.issuer, claims
        assert claims["aud"] == self.audience, claims
        assert isinstance(claims["iat"], int) and abs(claims["iat"] - time.time()) < 3600, claims
        assert "exp" not in claims and "sub" not in claims, claims
        assert isinstance(claims["jti"], str) and claims["jti"], claims
        if not repeated_ok:
            assert claims["jti"] not in self.seen, f"jti {claims['jti']} delivered twice"
        self.seen.add(claims["jti"])
        assert isinstance(claims.get("txn"), str), claims
        events = claims["events"]
        assert isinstance(events, dict) and len(events) == 1, claims
        subject = claims["sub_id"]
        if next(iter(events)) == SSF + "verification":
            assert subject["format"] == "opaque", subject
        else:
            assert subject["format"] == "iss_sub" and subject["iss"] == self.issuer and subject["sub"], subject
        return claims


class PushReceiver:
    """RFC 8935 push endpoint at http://127.0.0.1:PORT/events."""

    def __init__(self, verifier, port=0):
        self.verifier = verifier
        self.received = []          # claims of every SET accepted, in arrival order
        self.duplicates = []        # jti delivered again after it was accepted
        self.lock = threading.Lock()
        self.server = None
        self.port = port
        self.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/events"

    def start(self):
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                if self.headers.get("Content-Type") != "application/secevent+jwt":
                    return self._answer(400, {"err": "invalid_request", "description": "not a SET"})
                try:
                    with receiver.lock:
                        claims = receiver.verifier.verify(body, repeated_ok=True)
                        if any(c["jti"] == claims["jti"] for c in receiver.received):
                            receiver.duplicates.append(claims["jti"])
                        else:
                            receiver.received.append(claims)
                except Exception as error:   # a SET this receiver refuses: RFC 8935 §2.3
                    return self._answer(400, {"err": "invalid_request", "description": str(error)[:200]})
                self._answer(202, None)

            def _answer(self, status, body):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        http.server.ThreadingHTTPServer.allow_reuse_address = True
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def events(self, of_type=None):
        with self.lock:
            found = [c for c in self.received]
        if of_type is None:
            return found
        return [c for c in found if of_type in c["events"]]

    def wait_for(self, count, of_type=None, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.events(of_type)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{len(self.events(of_type))} of {count} {of_type or 'events'} arrived: "
                             f"{[list(c['events']) for c in self.events()]}")
