// OpenSSL 3: the parts Portico uses (libcrypto: EVP digests, MACs, signatures, keys, PEM, RNG;
// libssl: the TLS client of the provider's outbound requests).
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
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
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

/// TLS client settings that OpenSSL spells as macros over `SSL_ctrl` / `SSL_CTX_ctrl`.
static inline int portico_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int portico_ssl_ctx_set_minimum_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
#endif
