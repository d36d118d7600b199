// libcurl for resv, loaded with dlopen on the first request: `resv --version` and
// the file-store commands never load it, and building needs no libcurl-dev.
//
// The constants and struct layouts below are libcurl's ABI, copied from curl's
// include/curl/curl.h and include/curl/header.h (they never change within
// libcurl.so.4). The wrappers are not variadic, so Swift can call them.

#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>
#include <stdint.h>

typedef void CCURL;   // CURL
typedef void CCURLM;  // CURLM
typedef int64_t ccurl_off_t;

// CURLoption values: CURLOPT(name, type, number) = type + number.
static const int CCURLOPT_WRITEDATA = 10000 + 1;
static const int CCURLOPT_URL = 10000 + 2;
static const int CCURLOPT_ERRORBUFFER = 10000 + 10;
static const int CCURLOPT_WRITEFUNCTION = 20000 + 11;
static const int CCURLOPT_POSTFIELDS = 10000 + 15;
static const int CCURLOPT_LOW_SPEED_LIMIT = 0 + 19;
static const int CCURLOPT_LOW_SPEED_TIME = 0 + 20;
static const int CCURLOPT_HTTPHEADER = 10000 + 23;
static const int CCURLOPT_CUSTOMREQUEST = 10000 + 36;
static const int CCURLOPT_FOLLOWLOCATION = 0 + 52;
static const int CCURLOPT_HTTPGET = 0 + 80;
static const int CCURLOPT_HTTP_VERSION = 0 + 84;
static const int CCURLOPT_NOSIGNAL = 0 + 99;
static const int CCURLOPT_MAXFILESIZE_LARGE = 30000 + 117;
static const int CCURLOPT_POSTFIELDSIZE_LARGE = 30000 + 120;
static const int CCURLOPT_TIMEOUT_MS = 0 + 155;
static const int CCURLOPT_CONNECTTIMEOUT_MS = 0 + 156;
static const int CCURLOPT_PROTOCOLS_STR = 10000 + 318;
static const int CCURLOPT_CAINFO = 10000 + 65;
static const int CCURLOPT_FRESH_CONNECT = 0 + 74;

// CURL_HTTP_VERSION_1_1
static const long CCURL_HTTP_VERSION_1_1 = 2;
// CURLINFO values: type mask + number.
static const int CCURLINFO_RESPONSE_CODE = 0x200000 + 2;
static const int CCURLINFO_NUM_CONNECTS = 0x200000 + 26;

// CURLcode values resv tells apart.
static const int CCURLE_OK = 0;
static const int CCURLE_UNSUPPORTED_PROTOCOL = 1;
static const int CCURLE_URL_MALFORMAT = 3;
static const int CCURLE_COULDNT_RESOLVE_PROXY = 5;
static const int CCURLE_COULDNT_RESOLVE_HOST = 6;
static const int CCURLE_COULDNT_CONNECT = 7;
static const int CCURLE_WEIRD_SERVER_REPLY = 8;
static const int CCURLE_PARTIAL_FILE = 18;
static const int CCURLE_WRITE_ERROR = 23;
static const int CCURLE_OPERATION_TIMEDOUT = 28;
static const int CCURLE_ABORTED_BY_CALLBACK = 42;
static const int CCURLE_GOT_NOTHING = 52;
static const int CCURLE_SEND_ERROR = 55;
static const int CCURLE_RECV_ERROR = 56;
static const int CCURLE_FILESIZE_EXCEEDED = 63;
// TLS: the handshake failed, the server's certificate did not verify, the CA file could not be used.
static const int CCURLE_SSL_CONNECT_ERROR = 35;
static const int CCURLE_SSL_CERTPROBLEM = 58;
static const int CCURLE_PEER_FAILED_VERIFICATION = 60;
static const int CCURLE_SSL_CACERT_BADFILE = 77;
static const int CCURLE_SSL_ISSUER_ERROR = 83;

// CURL_ERROR_SIZE: the size of the CURLOPT_ERRORBUFFER buffer.
static const int CCURL_ERROR_SIZE = 256;
// CURLH_HEADER: the origin bit of a server's plain headers (not 1xx, not CONNECT, not trailers).
static const unsigned int CCURLH_HEADER = 1;

// struct curl_header of include/curl/header.h.
struct ccurl_header {
    char *name;
    char *value;
    size_t amount;
    size_t index;
    unsigned int origin;
    void *anchor;
};

// struct curl_slist of include/curl/curl.h.
struct ccurl_slist {
    char *data;
    struct ccurl_slist *next;
};

typedef size_t (*ccurl_write_callback)(char *buffer, size_t size, size_t count, void *context);

/// Loads libcurl.so.4 and initialises it, once per process; later calls return the
/// first call's outcome. 0 when loaded; otherwise -1, and `*error` (if given) points
/// to a static message (dlerror's text, or the missing function's name).
int ccurl_load(const char **error);

CCURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CCURL *easy);
int ccurl_setopt_long(CCURL *easy, int option, long value);
int ccurl_setopt_pointer(CCURL *easy, int option, const void *value);
int ccurl_setopt_off_t(CCURL *easy, int option, ccurl_off_t value);
int ccurl_setopt_write_function(CCURL *easy, ccurl_write_callback function);
/// curl_easy_getinfo for a `long` answer (CURLINFO_LONG).
int ccurl_getinfo_long(CCURL *easy, int info, long *value);
const char *ccurl_easy_strerror(int code);
struct ccurl_header *ccurl_easy_nextheader(CCURL *easy, unsigned int origin, int request, struct ccurl_header *prev);

struct ccurl_slist *ccurl_slist_append(struct ccurl_slist *list, const char *text);
void ccurl_slist_free_all(struct ccurl_slist *list);

// The multi interface, for one easy handle at a time: a transfer resv can wake
// (curl_multi_wakeup, from any thread) the moment it is cancelled, which
// curl_easy_perform cannot. The multi handle keeps the connections between transfers.
CCURLM *ccurl_multi_init(void);
void ccurl_multi_cleanup(CCURLM *multi);
int ccurl_multi_add_handle(CCURLM *multi, CCURL *easy);
int ccurl_multi_remove_handle(CCURLM *multi, CCURL *easy);
int ccurl_multi_perform(CCURLM *multi, int *running);
int ccurl_multi_poll(CCURLM *multi, int timeout_ms);
int ccurl_multi_wakeup(CCURLM *multi);
/// The CURLcode of the transfer that ended on `multi` (curl_multi_info_read's
/// CURLMSG_DONE message), or -1 when none has ended.
int ccurl_multi_result(CCURLM *multi);

#endif
