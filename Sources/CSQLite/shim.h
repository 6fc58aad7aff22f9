// SQLite 3. SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
#ifndef PORTICO_CSQLITE_SHIM_H
#define PORTICO_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Binds text that SQLite must copy before the call returns.
static inline int portico_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index,
                                                      const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// Binds bytes that SQLite must copy before the call returns.
static inline int portico_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index,
                                                      const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

/// Extended result codes are function-like macros built from shifts, which Swift does not
/// import; the store maps these to typed errors (duplicate, missing reference).
static const int portico_sqlite_constraint_unique = SQLITE_CONSTRAINT_UNIQUE;
static const int portico_sqlite_constraint_primary_key = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int portico_sqlite_constraint_foreign_key = SQLITE_CONSTRAINT_FOREIGNKEY;

/// The prepare flag for statements kept in a connection's statement cache.
static const unsigned int portico_sqlite_prepare_persistent = SQLITE_PREPARE_PERSISTENT;
#endif
