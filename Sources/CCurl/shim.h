#ifndef FILMCACHE_CCURL_SHIM_H
#define FILMCACHE_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which
   Swift cannot call. These typed wrappers give each argument kind its own name. */

typedef size_t (*fc_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef size_t (*fc_curl_header_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

static inline CURLcode fc_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode fc_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode fc_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode fc_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode fc_curl_easy_setopt_write_function(CURL *handle, fc_curl_write_callback fn) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, fn);
}

static inline CURLcode fc_curl_easy_setopt_header_function(CURL *handle, fc_curl_header_callback fn) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, fn);
}

typedef int (*fc_curl_prereq_callback)(void *clientp, char *conn_primary_ip, char *conn_local_ip,
                                      int conn_primary_port, int conn_local_port);

static inline CURLcode fc_curl_easy_setopt_prereq_function(CURL *handle, fc_curl_prereq_callback fn) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, fn);
}

static inline int fc_curl_prereq_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int fc_curl_prereq_abort(void) { return CURL_PREREQFUNC_ABORT; }

static inline CURLcode fc_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode fc_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode fc_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/* CURL_WRITEFUNC_PAUSE-style sentinels are macros; a size that is not the chunk size aborts a transfer. */
static inline size_t fc_curl_abort_write(void) { return 0; }

#endif
