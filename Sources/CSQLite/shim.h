#ifndef FILMCACHE_CSQLITE_SHIM_H
#define FILMCACHE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; this gives it a typed name.
static inline sqlite3_destructor_type fc_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Turns off SQLite's memory statistics before the library initializes (sqlite3_config is
/// variadic): with them on, every allocation and free takes a global mutex. Nothing here reads them.
static inline int fc_sqlite_memstatus_off(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
