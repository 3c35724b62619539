#ifndef FILMCACHE_CSYSTEM_SHIM_H
#define FILMCACHE_CSYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>

/* syncfs(2) is a GNU extension Glibc's Swift module does not show. */
static inline int fc_syncfs(int fd) { return syncfs(fd); }

#endif
