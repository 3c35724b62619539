#ifndef FILMCACHE_CCURL_SHIM_H
#define FILMCACHE_CCURL_SHIM_H
#include <curl/curl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

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

typedef curl_socket_t (*fc_curl_opensocket_callback)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);

static inline CURLcode fc_curl_easy_setopt_opensocket_function(CURL *handle, fc_curl_opensocket_callback fn) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, fn);
}

/* The value an open-socket callback returns to refuse a connection (libcurl then tries the
   next address of the name, if any). */
static inline curl_socket_t fc_curl_socket_bad(void) { return CURL_SOCKET_BAD; }

/* Copies the address libcurl is about to connect to into out (16 bytes): returns 4 for IPv4,
   16 for IPv6, 0 for any other family. curl_sockaddr's storage is large enough for either. */
static inline int fc_curl_sockaddr_bytes(const struct curl_sockaddr *address, unsigned char *out) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(out, &((const struct sockaddr_in *)&address->addr)->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)&address->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/* Opens the socket libcurl asked for, as its own open-socket step would, closed on exec. */
static inline curl_socket_t fc_curl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

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
