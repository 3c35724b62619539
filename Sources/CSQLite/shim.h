#ifndef FILMCACHE_CSQLITE_SHIM_H
#define FILMCACHE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; this gives it a typed name.
static inline sqlite3_destructor_type fc_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic. Turns SQLite's memory statistics off (SQLITE_CONFIG_MEMSTATUS, 0): with them
/// on, every allocation SQLite makes takes a global mutex to count it, and filmcache reads no statistic.
/// Only before SQLite is first used; later it returns SQLITE_MISUSE and changes nothing.
static inline int fc_sqlite3_config_no_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
