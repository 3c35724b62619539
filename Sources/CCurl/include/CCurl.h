#ifndef FILMCACHE_CCURL_H
#define FILMCACHE_CCURL_H
#include <curl/curl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* libcurl, loaded when a command that fetches makes its transport, rather than at start-up.

   libcurl brings some twenty-five libraries with it (TLS, Kerberos, LDAP, SSH, IDN...), and
   loading and relocating them took about 5 ms of every start, the whole of what `sqlite3` needs
   to answer a question. Only the commands that fetch need them, so filmcache does not link
   libcurl: fc_curl_load opens libcurl.so.4 (the soname of Debian's libcurl4) once, resolves the
   functions below and runs curl_global_init. Every fc_curl_ function calls through what it
   resolved, and none may be called before fc_curl_load has returned NULL. */

/* Loads libcurl once, thread-safe: NULL when it is ready, else why it is not (from dlerror). */
const char *fc_curl_load(void);

CURL *fc_curl_easy_init(void);
void fc_curl_easy_cleanup(CURL *handle);
const char *fc_curl_easy_strerror(CURLcode code);

CURLM *fc_curl_multi_init(void);
CURLMcode fc_curl_multi_cleanup(CURLM *multi);
CURLMcode fc_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode fc_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode fc_curl_multi_perform(CURLM *multi, int *running);
CURLMcode fc_curl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready);
CURLMcode fc_curl_multi_wakeup(CURLM *multi);
CURLMsg *fc_curl_multi_info_read(CURLM *multi, int *left);

struct curl_slist *fc_curl_slist_append(struct curl_slist *list, const char *line);
void fc_curl_slist_free_all(struct curl_slist *list);

CURLU *fc_curl_url(void);
void fc_curl_url_cleanup(CURLU *url);
CURLUcode fc_curl_url_set(CURLU *url, CURLUPart part, const char *content, unsigned int flags);
CURLUcode fc_curl_url_get(const CURLU *url, CURLUPart part, char **content, unsigned int flags);
void fc_curl_free(void *pointer);

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which
   Swift cannot call. These typed wrappers give each argument kind its own name. */

typedef size_t (*fc_curl_write_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef size_t (*fc_curl_header_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
typedef int (*fc_curl_prereq_callback)(void *clientp, char *conn_primary_ip, char *conn_local_ip,
                                      int conn_primary_port, int conn_local_port);
typedef curl_socket_t (*fc_curl_opensocket_callback)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);

CURLcode fc_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode fc_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode fc_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode fc_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode fc_curl_easy_setopt_write_function(CURL *handle, fc_curl_write_callback fn);
CURLcode fc_curl_easy_setopt_header_function(CURL *handle, fc_curl_header_callback fn);
CURLcode fc_curl_easy_setopt_prereq_function(CURL *handle, fc_curl_prereq_callback fn);
CURLcode fc_curl_easy_setopt_opensocket_function(CURL *handle, fc_curl_opensocket_callback fn);
CURLcode fc_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode fc_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
CURLMcode fc_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

static inline int fc_curl_prereq_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int fc_curl_prereq_abort(void) { return CURL_PREREQFUNC_ABORT; }

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

/* CURL_WRITEFUNC_PAUSE-style sentinels are macros; a size that is not the chunk size aborts a transfer. */
static inline size_t fc_curl_abort_write(void) { return 0; }

#endif
