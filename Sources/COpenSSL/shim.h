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
#endif
