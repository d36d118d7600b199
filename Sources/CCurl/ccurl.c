#include "ccurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libcurl's functions, resolved once by ccurl_load. The variadic ones
// (curl_easy_setopt, curl_easy_getinfo) are called through their real,
// variadic type: calling a variadic function through a non-variadic pointer
// is undefined on x86_64 (%al must hold the count of vector registers).
static struct {
    int (*global_init)(long flags);
    CCURL *(*easy_init)(void);
    void (*easy_cleanup)(CCURL *);
    int (*easy_setopt)(CCURL *, int, ...);
    int (*easy_getinfo)(CCURL *, int, ...);
    const char *(*easy_strerror)(int);
    struct ccurl_header *(*easy_nextheader)(CCURL *, unsigned int, int, struct ccurl_header *);
    int (*easy_header)(CCURL *, const char *, size_t, unsigned int, int, struct ccurl_header **);
    struct ccurl_slist *(*slist_append)(struct ccurl_slist *, const char *);
    void (*slist_free_all)(struct ccurl_slist *);
    CCURLM *(*multi_init)(void);
    int (*multi_cleanup)(CCURLM *);
    int (*multi_add_handle)(CCURLM *, CCURL *);
    int (*multi_remove_handle)(CCURLM *, CCURL *);
    int (*multi_perform)(CCURLM *, int *);
    int (*multi_poll)(CCURLM *, void *, unsigned int, int, int *);
    int (*multi_wakeup)(CCURLM *);
    void *(*multi_info_read)(CCURLM *, int *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

#define RESOLVE(field, name)                                                                     \
    do {                                                                                         \
        *(void **)(&curl.field) = dlsym(library, name);                                         \
        if (curl.field == NULL) {                                                                \
            snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s (libcurl 7.84 or later is needed)", \
                name);                                                                           \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot load libcurl.so.4");
        return;
    }
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(easy_nextheader, "curl_easy_nextheader");
    RESOLVE(easy_header, "curl_easy_header");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(multi_init, "curl_multi_init");
    RESOLVE(multi_cleanup, "curl_multi_cleanup");
    RESOLVE(multi_add_handle, "curl_multi_add_handle");
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(multi_perform, "curl_multi_perform");
    RESOLVE(multi_poll, "curl_multi_poll");
    RESOLVE(multi_wakeup, "curl_multi_wakeup");
    RESOLVE(multi_info_read, "curl_multi_info_read");
    // CURL_GLOBAL_ALL (3). Not thread-safe in old libcurls: pthread_once makes it run once, first.
    int code = curl.global_init(3L);
    if (code != CCURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed (%d)", code);
        return;
    }
    load_status = 0;
}

int ccurl_load(const char **error) {
    pthread_once(&load_once, load);
    if (load_status != 0 && error != NULL) *error = load_error;
    return load_status;
}

CCURL *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(CCURL *easy) { curl.easy_cleanup(easy); }
int ccurl_setopt_long(CCURL *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int ccurl_setopt_pointer(CCURL *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}
int ccurl_setopt_off_t(CCURL *easy, int option, ccurl_off_t value) { return curl.easy_setopt(easy, option, value); }
int ccurl_setopt_write_function(CCURL *easy, ccurl_write_callback function) {
    return curl.easy_setopt(easy, CCURLOPT_WRITEFUNCTION, function);
}
int ccurl_getinfo_long(CCURL *easy, int info, long *value) { return curl.easy_getinfo(easy, info, value); }
const char *ccurl_easy_strerror(int code) { return curl.easy_strerror(code); }
struct ccurl_header *ccurl_easy_nextheader(CCURL *easy, unsigned int origin, int request, struct ccurl_header *prev) {
    return curl.easy_nextheader(easy, origin, request, prev);
}

struct ccurl_slist *ccurl_slist_append(struct ccurl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}
void ccurl_slist_free_all(struct ccurl_slist *list) { curl.slist_free_all(list); }

CCURLM *ccurl_multi_init(void) { return curl.multi_init(); }
void ccurl_multi_cleanup(CCURLM *multi) { curl.multi_cleanup(multi); }
int ccurl_multi_add_handle(CCURLM *multi, CCURL *easy) { return curl.multi_add_handle(multi, easy); }
int ccurl_multi_remove_handle(CCURLM *multi, CCURL *easy) { return curl.multi_remove_handle(multi, easy); }
int ccurl_multi_perform(CCURLM *multi, int *running) { return curl.multi_perform(multi, running); }
int ccurl_multi_poll(CCURLM *multi, int timeout_ms) { return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL); }
int ccurl_multi_wakeup(CCURLM *multi) { return curl.multi_wakeup(multi); }

// struct CURLMsg of include/curl/multi.h.
struct ccurl_message {
    int message;  // CURLMSG: CURLMSG_DONE is 1
    CCURL *easy;
    union {
        void *whatever;
        int result;
    } data;
};

int ccurl_multi_result(CCURLM *multi) {
    int left = 0;
    struct ccurl_message *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->message == 1) return message->data.result;
    }
    return -1;
}
