#ifndef FILMCACHE_CSQLITE_SHIM_H
#define FILMCACHE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; this gives it a typed name.
static inline sqlite3_destructor_type fc_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
