// PostgreSQL's client library.
#ifndef PORTICO_CLIBPQ_SHIM_H
#define PORTICO_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
