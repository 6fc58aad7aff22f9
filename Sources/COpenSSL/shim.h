// OpenSSL 3 libcrypto: the parts Portico uses (EVP digests, MACs, signatures, keys, PEM, RNG).
#ifndef PORTICO_COPENSSL_SHIM_H
#define PORTICO_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

/// `BIO_get_mem_data` is a macro; this gives Swift a function.
static inline long portico_bio_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// Key selections for `EVP_PKEY_fromdata`; composite macros that Swift cannot import.
static inline int portico_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }
static inline int portico_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }

/// RSA CRT parameter names; built by string-literal concatenation, which Swift cannot import.
static inline const char *portico_param_rsa_factor1(void) { return OSSL_PKEY_PARAM_RSA_FACTOR1; }
static inline const char *portico_param_rsa_factor2(void) { return OSSL_PKEY_PARAM_RSA_FACTOR2; }
static inline const char *portico_param_rsa_exponent1(void) { return OSSL_PKEY_PARAM_RSA_EXPONENT1; }
static inline const char *portico_param_rsa_exponent2(void) { return OSSL_PKEY_PARAM_RSA_EXPONENT2; }
static inline const char *portico_param_rsa_coefficient1(void) { return OSSL_PKEY_PARAM_RSA_COEFFICIENT1; }
#endif
