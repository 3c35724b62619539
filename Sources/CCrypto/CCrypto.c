#include "CCrypto.h"

#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>

/* As libcrypto.so.3 defines them (types from evp.h). */
static struct {
    __typeof__(PKCS5_PBKDF2_HMAC) *pbkdf2_hmac;
    __typeof__(EVP_Digest) *digest;
    __typeof__(EVP_sha256) *sha256;
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
    FC_RESOLVE(pbkdf2_hmac, PKCS5_PBKDF2_HMAC)
    FC_RESOLVE(digest, EVP_Digest)
    FC_RESOLVE(sha256, EVP_sha256)
#undef FC_RESOLVE
    loaded = 1;
}

const char *fc_crypto_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

int fc_pbkdf2_sha256(const char *password, int password_length, const unsigned char *salt, int salt_length,
                     int iterations, unsigned char *out, int out_length) {
    return crypto.pbkdf2_hmac(password, password_length, salt, salt_length, iterations, crypto.sha256(), out_length,
                              out);
}

int fc_sha256(const void *data, size_t length, unsigned char *out) {
    return crypto.digest(data, length, out, NULL, crypto.sha256(), NULL);
}
