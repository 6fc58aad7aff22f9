# Makes Tests/PorticoCryptoTests/Vectors/ps256.json: PS256 tokens signed by joserfc and by the
# openssl command line (never by Portico), in jose.json's format.
import base64, json, subprocess, sys
from joserfc import jws
from joserfc.jwk import RSAKey

def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def unb64(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))

key = RSAKey.import_key(open("key.pem").read())
other = RSAKey.import_key(open("other.pem").read())
priv = key.as_dict(private=True); pub = key.as_dict(private=False)
for d in (priv, pub):
    d["kid"] = "test-ps256"; d["alg"] = "PS256"
payload = '{"iss":"https://issuer.example","sub":"u-123","aud":"client-1","iat":1700000000,"exp":4102444800,"nonce":"n-0S6_WzA2Mj"}'
header = {"alg": "PS256", "kid": "test-ps256", "typ": "JWT"}

by_joserfc = jws.serialize_compact(header, payload, key, algorithms=["PS256"])

def openssl_sign(pem, signing_input, salt="32", padding="pss"):
    opts = ["-sigopt", "rsa_padding_mode:" + padding]
    if padding == "pss":
        opts += ["-sigopt", "rsa_pss_saltlen:" + salt, "-sigopt", "rsa_mgf1_md:sha256"]
    return subprocess.run(["openssl", "dgst", "-sha256", "-sign", pem, *opts], input=signing_input,
                          capture_output=True, check=True).stdout

h = b64(json.dumps(header, separators=(",", ":")).encode())
p = b64(payload.encode())
si = (h + "." + p).encode()
by_openssl = h + "." + p + "." + b64(openssl_sign("key.pem", si))

sig = bytearray(unb64(by_joserfc.split(".")[2])); sig[-1] ^= 1
flipped = by_joserfc.rsplit(".", 1)[0] + "." + b64(bytes(sig))
other_key = h + "." + p + "." + b64(openssl_sign("other.pem", si))
tampered_p = b64(payload.replace("u-123", "u-124").encode())
tampered = h + "." + tampered_p + "." + by_openssl.split(".")[2]
alg_none = b64(b'{"alg": "none"}') + "." + p + "."
truncated = h + "." + p
salt20 = h + "." + p + "." + b64(openssl_sign("key.pem", si, salt="20"))
pkcs1 = h + "." + p + "." + b64(openssl_sign("key.pem", si, padding="pkcs1"))

out = {
    "description": "PS256 (RFC 7518 §3.5: SHA-256, MGF1 with SHA-256, 32-byte salt), in jose.json's format. "
    "The key was made with `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`; 'valid' holds one token "
    "signed by joserfc " + __import__("joserfc").__version__ + " and one whose signature `openssl dgst -sha256 "
    "-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32 -sigopt rsa_mgf1_md:sha256` made over the signing input. "
    "Invalid: the usual five, plus a PSS signature with a 20-byte salt and a PKCS#1 v1.5 (RS256) signature by the same "
    "key under a PS256 header.",
    "cases": [{
        "alg": "PS256", "private_jwk": priv, "public_jwk": pub, "payload": payload,
        "valid": [by_joserfc, by_openssl],
        "invalid": {
            "flipped_signature_bit": flipped, "signed_by_other_key": other_key, "tampered_payload": tampered,
            "alg_none": alg_none, "truncated": truncated, "salt_length_20": salt20, "pkcs1_v1_5_signature": pkcs1,
        },
    }],
}
# Check with joserfc itself that valid verifies and the signature-level invalid ones do not.
for t in (by_joserfc, by_openssl):
    jws.deserialize_compact(t, key, algorithms=["PS256"])
json.dump(out, sys.stdout, indent=2)
print()
