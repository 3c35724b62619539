#include "CCrypto.h"

#include <dlfcn.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* As libcrypto.so.3 defines them. The SHA-256 block functions are deprecated in OpenSSL 3 (their
   declarations warn), not removed: Debian's libssl3, as every 3.x built without `no-deprecated`,
   exports them. Their types are written out here. */
typedef int (*sha256_init_fn)(SHA256_CTX *);
typedef int (*sha256_update_fn)(SHA256_CTX *, const void *, size_t);
typedef int (*sha256_final_fn)(unsigned char *, SHA256_CTX *);
typedef void (*sha256_transform_fn)(SHA256_CTX *, const unsigned char *);
static struct {
    __typeof__(EVP_Digest) *digest;
    __typeof__(EVP_sha256) *sha256;
    sha256_init_fn sha256_init;
    sha256_update_fn sha256_update;
    sha256_final_fn sha256_final;
    sha256_transform_fn sha256_transform;
} crypto;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[512];

static void load(void) {
    /* RTLD_LOCAL: libcrypto's symbols stay out of the global scope, nothing else binds to them. */
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why != NULL ? why : "libcrypto.so.3 could not be opened");
        return;
    }
#define FC_RESOLVE(field, name)                                                                  \
    if ((crypto.field = (__typeof__(crypto.field))dlsym(library, #name)) == NULL) {              \
        snprintf(failure, sizeof failure, "libcrypto.so.3 has no %s", #name);                    \
        return;                                                                                  \
    }
    FC_RESOLVE(digest, EVP_Digest)
    FC_RESOLVE(sha256, EVP_sha256)
    FC_RESOLVE(sha256_init, SHA256_Init)
    FC_RESOLVE(sha256_update, SHA256_Update)
    FC_RESOLVE(sha256_final, SHA256_Final)
    FC_RESOLVE(sha256_transform, SHA256_Transform)
#undef FC_RESOLVE
    loaded = 1;
}

const char *fc_crypto_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

/* The state's words as the digest's bytes (big-endian). */
static void state_bytes(const SHA256_CTX *state, unsigned char *out) {
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(state->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(state->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(state->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)state->h[i];
    }
}

/* PBKDF2-HMAC-SHA256 (RFC 8018, section 5.2) on SHA-256's block function.

   libcrypto's PKCS5_PBKDF2_HMAC copies an HMAC context each round (allocations, two context
   copies, a cleanse): twice the time of the two SHA-256 blocks a round needs. Here the key's inner
   and outer pads are hashed once; each round then runs one block from each saved state. Every
   round after the first hashes a 32-byte message after a 64-byte pad, so its block is that
   message, 0x80, zeros and the length, 96 bytes in bits (768 = 0x300), always the same. */
int fc_pbkdf2_sha256(const char *password, int password_length, const unsigned char *salt, int salt_length,
                     int iterations, unsigned char *out, int out_length) {
    if (password_length < 0 || salt_length < 0 || iterations < 1 || out_length < 0) return 0;
    unsigned char key[64] = {0}, pad[64];
    SHA256_CTX inner, outer, state;
    if (password_length > 64) {
        /* HMAC hashes a key longer than a block first. */
        crypto.sha256_init(&state);
        crypto.sha256_update(&state, password, (size_t)password_length);
        crypto.sha256_final(key, &state);
    } else if (password_length > 0) {
        memcpy(key, password, (size_t)password_length);
    }
    for (int i = 0; i < 64; i++) pad[i] = key[i] ^ 0x36;
    crypto.sha256_init(&inner);
    crypto.sha256_update(&inner, pad, sizeof pad);
    for (int i = 0; i < 64; i++) pad[i] = key[i] ^ 0x5c;
    crypto.sha256_init(&outer);
    crypto.sha256_update(&outer, pad, sizeof pad);

    unsigned char block[64] = {0}, u[32], t[32];
    block[32] = 0x80;
    block[62] = 0x03;
    for (uint32_t index = 1; out_length > 0; index++) {
        const unsigned char counter[4] = {(unsigned char)(index >> 24), (unsigned char)(index >> 16),
                                          (unsigned char)(index >> 8), (unsigned char)index};
        /* U1 = HMAC(password, salt || INT(index)); the inner digest lands in the block's message. */
        state = inner;
        crypto.sha256_update(&state, salt, (size_t)salt_length);
        crypto.sha256_update(&state, counter, sizeof counter);
        crypto.sha256_final(block, &state);
        state = outer;
        crypto.sha256_transform(&state, block);
        state_bytes(&state, u);
        memcpy(t, u, sizeof t);
        /* Uj = HMAC(password, Uj-1); T = U1 ^ U2 ^ ... ^ Uc. */
        for (int round = 1; round < iterations; round++) {
            memcpy(block, u, sizeof u);
            state = inner;
            crypto.sha256_transform(&state, block);
            state_bytes(&state, block);
            state = outer;
            crypto.sha256_transform(&state, block);
            state_bytes(&state, u);
            for (int i = 0; i < 32; i++) t[i] ^= u[i];
        }
        int take = out_length < 32 ? out_length : 32;
        memcpy(out, t, (size_t)take);
        out += take;
        out_length -= take;
    }
    /* Nothing derived from the password outlives the call. */
    explicit_bzero(key, sizeof key);
    explicit_bzero(pad, sizeof pad);
    explicit_bzero(block, sizeof block);
    explicit_bzero(u, sizeof u);
    explicit_bzero(t, sizeof t);
    explicit_bzero(&inner, sizeof inner);
    explicit_bzero(&outer, sizeof outer);
    explicit_bzero(&state, sizeof state);
    return 1;
}

int fc_sha256(const void *data, size_t length, unsigned char *out) {
    return crypto.digest(data, length, out, NULL, crypto.sha256(), NULL);
}
