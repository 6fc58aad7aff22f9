// PostgreSQL's client library.
#ifndef PORTICO_CLIBPQ_SHIM_H
#define PORTICO_CLIBPQ_SHIM_H
#include <libpq-fe.h>

// The error fields are character macros, which Swift does not import.
static const int portico_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int portico_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int portico_pg_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int portico_pg_diag_constraint_name = PG_DIAG_CONSTRAINT_NAME;

// Notices (for example "relation already exists, skipping") would go to stderr; the store
// reports what matters through errors instead.
static void portico_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void portico_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, portico_pq_ignore_notice, 0);
}
#endif
