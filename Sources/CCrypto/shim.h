#ifndef FILMCACHE_CCRYPTO_SHIM_H
#define FILMCACHE_CCRYPTO_SHIM_H
#include <openssl/evp.h>

/// PBKDF2-HMAC-SHA256 of `password` with `salt`: 1 on success. EVP_sha256() is a function
/// returning a pointer Swift imports awkwardly as an opaque type; this keeps it on the C side.
static inline int fc_pbkdf2_sha256(
    const char *password, int password_length, const unsigned char *salt, int salt_length, int iterations,
    unsigned char *out, int out_length) {
    return PKCS5_PBKDF2_HMAC(password, password_length, salt, salt_length, iterations, EVP_sha256(), out_length, out);
}

/// SHA-256 of `length` bytes at `data` into `out` (32 bytes): 1 on success.
static inline int fc_sha256(const void *data, size_t length, unsigned char *out) {
    return EVP_Digest(data, length, out, NULL, EVP_sha256(), NULL);
}

#endif
