#!/usr/bin/env python3
"""DPoP proofs for bench/idp/cluster.sh's DPoP scenarios (issue 27), pre-signed so that wrk
only sends them (runs in the project venv, for `cryptography`).

  dpop_proofs.py refresh  BASE ITEMS_IN OUT      one proof of POST {issuer}/oauth/token for each
                                                 refresh token of ITEMS_IN; OUT gets
                                                 "token<TAB>proof" lines
  dpop_proofs.py userinfo BASE SEED_DIR COUNT OUT redeem the seed's spare-codes-dpop.txt with
                                                 proofs (DPoP-bound access tokens), then COUNT
                                                 proofs of GET {issuer}/oauth/userinfo, each
                                                 with its token's `ath`, round the tokens

Every proof has its own `jti` (the server accepts each once) and an `iat` of now: the server
takes proofs within 120 s of its clock, so the proofs are made right before their run. One
P-256 key signs everything, as one installation of an app would.
"""

import base64
import hashlib
import json
import secrets
import sys
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

import prepare


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class ProofSigner:
    """ES256 DPoP proofs (RFC 9449 §4.2) by one key."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        numbers = self.key.public_key().public_numbers()
        jwk = {"kty": "EC", "crv": "P-256",
               "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}
        header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk}
        self.header = b64(json.dumps(header, separators=(",", ":")).encode())

    def proof(self, method, url, access_token=None):
        claims = {"jti": secrets.token_urlsafe(12), "htm": method, "htu": url, "iat": int(time.time())}
        if access_token is not None:
            claims["ath"] = b64(hashlib.sha256(access_token.encode()).digest())
        signing_input = self.header + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
        r, s = decode_dss_signature(self.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def issuer_of(base):
    connection = prepare.connect(base)
    connection.request("GET", "/.well-known/openid-configuration")
    response = connection.getresponse()
    document = json.loads(response.read())
    if response.status != 200:
        sys.exit(f"dpop_proofs.py: discovery answered {response.status}")
    if "ES256" not in document.get("dpop_signing_alg_values_supported", []):
        sys.exit("dpop_proofs.py: the provider does not advertise DPoP with ES256")
    return document["issuer"]


def refresh(base, items_in, out_file):
    signer, token_url = ProofSigner(), issuer_of(base) + "/oauth/token"
    with open(items_in) as source, open(out_file, "w") as out:
        for line in source:
            token = line.strip()
            if token:
                out.write(f"{token}\t{signer.proof('POST', token_url)}\n")


def userinfo(base, seed_dir, count, out_file):
    signer, issuer = ProofSigner(), issuer_of(base)
    answers = prepare.redeem(
        base, seed_dir, "spare-codes-dpop.txt", proof=lambda: signer.proof("POST", issuer + "/oauth/token"))
    if any(answer.get("token_type") != "DPoP" for answer in answers):
        sys.exit("dpop_proofs.py: a code redeemed with a proof did not give a DPoP-bound token")
    tokens = [answer["access_token"] for answer in answers]
    url = issuer + "/oauth/userinfo"
    with open(out_file, "w") as out:
        for index in range(count):
            token = tokens[index % len(tokens)]
            out.write(f"{token}\t{signer.proof('GET', url, token)}\n")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "refresh":
        refresh(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 6 and sys.argv[1] == "userinfo":
        userinfo(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        sys.exit(__doc__)
