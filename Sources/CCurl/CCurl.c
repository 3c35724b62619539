#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The functions filmcache calls after the version check, each curl_NAME, listed once: the table and
   its resolution below both come from this list. */
#define FC_CURL_FUNCTIONS(X)                                                                      \
    X(global_init) X(easy_init) X(easy_cleanup) X(easy_strerror) X(easy_setopt) X(easy_getinfo)   \
    X(multi_init) X(multi_cleanup) X(multi_setopt) X(multi_add_handle) X(multi_remove_handle)     \
    X(multi_perform) X(multi_poll) X(multi_wakeup) X(multi_info_read) X(slist_append)             \
    X(slist_free_all) X(url) X(url_cleanup) X(url_set) X(url_get) X(free)

/* As libcurl.so.4 defines them (types from curl.h). */
static struct {
    __typeof__(curl_version_info) *version_info;
#define FC_FIELD(name) __typeof__(curl_##name) *name;
    FC_CURL_FUNCTIONS(FC_FIELD)
#undef FC_FIELD
} curl;

/* The oldest libcurl filmcache works with (the package's Depends says the same). */
#define FC_CURL_OLDEST 0x075500
#define FC_CURL_OLDEST_TEXT "7.85.0"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[512];

static void load(void) {
    /* RTLD_LOCAL: libcurl's symbols stay out of the global scope, nothing else binds to them. */
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define FC_RESOLVE(name)                                                                         \
    if ((curl.name = (__typeof__(curl.name))dlsym(library, "curl_" #name)) == NULL) {            \
        snprintf(failure, sizeof failure, "libcurl.so.4 has no curl_%s", #name);                 \
        return;                                                                                  \
    }
    FC_RESOLVE(version_info)
    /* Every function below exists since 7.68, but options filmcache relies on are newer, and libcurl
       ignores an option it does not know: CURLOPT_PROTOCOLS_STR and CURLOPT_REDIR_PROTOCOLS_STR (only
       HTTP and HTTPS, 7.85) and CURLOPT_PREREQFUNCTION (no silent re-send, 7.80). */
    const curl_version_info_data *version = curl.version_info(CURLVERSION_NOW);
    if (version == NULL || version->version_num < FC_CURL_OLDEST) {
        snprintf(failure, sizeof failure, "libcurl.so.4 is version %s; filmcache needs %s or later",
                 version == NULL ? "unknown" : version->version, FC_CURL_OLDEST_TEXT);
        return;
    }
    FC_CURL_FUNCTIONS(FC_RESOLVE)
#undef FC_RESOLVE
    CURLcode code = curl.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(failure, sizeof failure, "curl_global_init failed: %s", curl.easy_strerror(code));
        return;
    }
    loaded = 1;
}

const char *fc_curl_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

CURL *fc_curl_easy_init(void) { return curl.easy_init(); }
void fc_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
const char *fc_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

CURLM *fc_curl_multi_init(void) { return curl.multi_init(); }
CURLMcode fc_curl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
CURLMcode fc_curl_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode fc_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode fc_curl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }
CURLMcode fc_curl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready) {
    return curl.multi_poll(multi, extra, count, timeout, ready);
}
CURLMcode fc_curl_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }
CURLMsg *fc_curl_multi_info_read(CURLM *multi, int *left) { return curl.multi_info_read(multi, left); }

struct curl_slist *fc_curl_slist_append(struct curl_slist *list, const char *line) {
    return curl.slist_append(list, line);
}
void fc_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLU *fc_curl_url(void) { return curl.url(); }
void fc_curl_url_cleanup(CURLU *url) { curl.url_cleanup(url); }
CURLUcode fc_curl_url_set(CURLU *url, CURLUPart part, const char *content, unsigned int flags) {
    return curl.url_set(url, part, content, flags);
}
CURLUcode fc_curl_url_get(const CURLU *url, CURLUPart part, char **content, unsigned int flags) {
    /* Older curl.h (Debian 12's 7.88) declares the handle without const; libcurl only reads it. */
    return curl.url_get((CURLU *)url, part, content, flags);
}
void fc_curl_free(void *pointer) { curl.free(pointer); }

CURLcode fc_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode fc_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode fc_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode fc_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode fc_curl_easy_setopt_write_function(CURL *handle, fc_curl_write_callback fn) {
    return curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, fn);
}
CURLcode fc_curl_easy_setopt_header_function(CURL *handle, fc_curl_header_callback fn) {
    return curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, fn);
}
CURLcode fc_curl_easy_setopt_prereq_function(CURL *handle, fc_curl_prereq_callback fn) {
    return curl.easy_setopt(handle, CURLOPT_PREREQFUNCTION, fn);
}
CURLcode fc_curl_easy_setopt_opensocket_function(CURL *handle, fc_curl_opensocket_callback fn) {
    return curl.easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, fn);
}
CURLcode fc_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}
CURLcode fc_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl.easy_getinfo(handle, info, value);
}
CURLMcode fc_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl.multi_setopt(handle, option, value);
}
