#ifndef FILMCACHE_CSYSTEM_SHIM_H
#define FILMCACHE_CSYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <unistd.h>

/* syncfs(2) is a GNU extension Glibc's Swift module does not show. */
static inline int fc_syncfs(int fd) { return syncfs(fd); }

/* Flushes standard output's stdio buffer: 0 when everything written so far got out, -1 when a
   write failed (a closed pipe with SIGPIPE ignored, a full disk), now or before. Glibc's `stdout`
   is a mutable global Swift 6 will not read outside the main actor. */
static inline int fc_flush_stdout(void) { return (fflush(stdout) != 0 || ferror(stdout)) ? -1 : 0; }

#endif
