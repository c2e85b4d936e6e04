#ifndef PREFLIGHT_CSQLITE_SHIM_H
#define PREFLIGHT_CSQLITE_SHIM_H
#include <sqlite3.h>
#include "counted_collations.h"

/* Swift cannot call C variadic functions; these fixed-argument wrappers stand in. */

/* sqlite3_db_config(db, op, int, int*) for the boolean SQLITE_DBCONFIG_* options. */
static inline int preflight_db_config_flag(sqlite3 *db, int op, int onoff) {
    int applied = 0;
    return sqlite3_db_config(db, op, onoff, &applied);
}

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift does not import. */
static inline sqlite3_destructor_type preflight_transient(void) { return SQLITE_TRANSIENT; }

#endif
