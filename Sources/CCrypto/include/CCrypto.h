#ifndef FILMCACHE_CCRYPTO_H
#define FILMCACHE_CCRYPTO_H
#include <stddef.h>

/* libcrypto, loaded the first time a digest is asked for rather than at start-up.

   Linked, libcrypto.so.3 and its constructors took about 1 ms of every start, as much as `sqlite3`
   takes to answer a question, while only the commands that name a key (PBKDF2) or a poster file
   (SHA-256) use it. fc_crypto_load opens libcrypto.so.3 (the soname of Debian 12's libssl3) once
   and resolves what the two fc_ functions below call: EVP_Digest and SHA-256's block functions. */

/* Loads libcrypto once, thread-safe: NULL when it is ready, else why it is not (from dlerror). */
const char *fc_crypto_load(void);

/* PBKDF2-HMAC-SHA256 of `password` with `salt`, `out_length` bytes into `out`: 1 on success, 0 for a
   negative length or fewer than one iteration. Call fc_crypto_load first. */
int fc_pbkdf2_sha256(const char *password, int password_length, const unsigned char *salt, int salt_length,
                     int iterations, unsigned char *out, int out_length);

/* SHA-256 of `length` bytes at `data` into `out` (32 bytes): 1 on success. Call fc_crypto_load first. */
int fc_sha256(const void *data, size_t length, unsigned char *out);

#endif
