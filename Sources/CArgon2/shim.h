// The Argon2 reference implementation (libargon2).
#ifndef PORTICO_CARGON2_SHIM_H
#define PORTICO_CARGON2_SHIM_H
#include <argon2.h>
#endif
