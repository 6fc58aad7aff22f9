// libcbor: the CBOR decoder for WebAuthn's attestation objects and COSE keys (never by hand).
#ifndef PORTICO_CCBOR_SHIM_H
#define PORTICO_CCBOR_SHIM_H
#include <cbor.h>
#endif
