#include "cjq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// jv_kind of src/jv.h.
enum { KIND_INVALID = 0, KIND_NULL = 1, KIND_NUMBER = 4, KIND_STRING = 5 };

typedef void (*error_callback)(void *, cjq_jv);
typedef void (*nomem_callback)(void *);

// libjq's functions, resolved once by cjq_load.
static struct {
    cjq_state *(*init)(void);
    void (*set_error_cb)(cjq_state *, error_callback, void *);
    int (*compile)(cjq_state *, const char *);
    void (*start)(cjq_state *, cjq_jv, int);
    cjq_jv (*next)(cjq_state *);
    void (*teardown)(cjq_state **);
    int (*halted)(cjq_state *);
    cjq_jv (*get_exit_code)(cjq_state *);
    cjq_jv (*get_error_message)(cjq_state *);
    cjq_parser *(*parser_new)(int);
    void (*parser_set_buf)(cjq_parser *, const char *, int, int);
    cjq_jv (*parser_next)(cjq_parser *);
    void (*parser_free)(cjq_parser *);
    int (*get_kind)(cjq_jv);
    cjq_jv (*copy)(cjq_jv);
    void (*free)(cjq_jv);
    const char *(*string_value)(cjq_jv);
    int (*string_length_bytes)(cjq_jv);
    cjq_jv (*dump_string)(cjq_jv, int);
    cjq_jv (*invalid_get_msg)(cjq_jv);
    double (*number_value)(cjq_jv);
    void (*nomem_handler)(nomem_callback, void *);
} jq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

#define RESOLVE(field, name)                                                                      \
    do {                                                                                          \
        *(void **)(&jq.field) = dlsym(library, name);                                            \
        if (jq.field == NULL) {                                                                   \
            snprintf(load_error, sizeof load_error, "libjq.so.1 has no %s (jq 1.6 or later is needed)", name); \
            return;                                                                               \
        }                                                                                         \
    } while (0)

static void load(void) {
    void *library = dlopen("libjq.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "cannot load libjq.so.1");
        return;
    }
    RESOLVE(init, "jq_init");
    RESOLVE(set_error_cb, "jq_set_error_cb");
    RESOLVE(compile, "jq_compile");
    RESOLVE(start, "jq_start");
    RESOLVE(next, "jq_next");
    RESOLVE(teardown, "jq_teardown");
    RESOLVE(halted, "jq_halted");
    RESOLVE(get_exit_code, "jq_get_exit_code");
    RESOLVE(get_error_message, "jq_get_error_message");
    RESOLVE(parser_new, "jv_parser_new");
    RESOLVE(parser_set_buf, "jv_parser_set_buf");
    RESOLVE(parser_next, "jv_parser_next");
    RESOLVE(parser_free, "jv_parser_free");
    RESOLVE(get_kind, "jv_get_kind");
    RESOLVE(copy, "jv_copy");
    RESOLVE(free, "jv_free");
    RESOLVE(string_value, "jv_string_value");
    RESOLVE(string_length_bytes, "jv_string_length_bytes");
    RESOLVE(dump_string, "jv_dump_string");
    RESOLVE(invalid_get_msg, "jv_invalid_get_msg");
    RESOLVE(number_value, "jv_number_value");
    RESOLVE(nomem_handler, "jv_nomem_handler");
    load_status = 0;
}

int cjq_load(const char **error) {
    pthread_once(&load_once, load);
    if (load_status != 0 && error != NULL) *error = load_error;
    return load_status;
}

/// A string's bytes, malloc'd with a NUL after them (consumes `string`).
static char *copy_string(cjq_jv string, size_t *length) {
    int count = jq.string_length_bytes(jq.copy(string));
    char *text = malloc((size_t)count + 1);
    if (text != NULL) {
        memcpy(text, jq.string_value(string), (size_t)count);
        text[count] = 0;
        if (length != NULL) *length = (size_t)count;
    }
    jq.free(string);
    return text;
}

/// A message as jq's own command prints it: a string as itself, anything else as JSON
/// (consumes `message`).
static char *message_text(cjq_jv message) {
    if (jq.get_kind(message) == KIND_STRING) return copy_string(message, NULL);
    cjq_jv dumped = jq.dump_string(message, 0);
    if (jq.get_kind(dumped) != KIND_STRING) {
        jq.free(dumped);
        return NULL;
    }
    char *json = copy_string(dumped, NULL);
    if (json == NULL) return NULL;
    size_t size = strlen(json) + sizeof " (not a string)";
    char *text = malloc(size);
    if (text != NULL) snprintf(text, size, "%s (not a string)", json);
    free(json);
    return text;
}

struct error_buffer {
    char *text;
    size_t size;
};

// jq_compile's messages (jq hands over each message): appended, a line each.
static void collect_error(void *context, cjq_jv message) {
    struct error_buffer *buffer = context;
    char *text = message_text(message);
    if (text == NULL || buffer->size == 0) {
        free(text);
        return;
    }
    size_t used = strlen(buffer->text);
    snprintf(buffer->text + used, buffer->size - used, "%s%s", used > 0 ? "\n" : "", text);
    free(text);
}

// After compiling: nothing is reported through the callback, but its buffer is gone.
static void ignore_error(void *context, cjq_jv message) {
    (void)context;
    jq.free(message);
}

static int nomem_status = 70;
static char nomem_message[256] = "out of memory\n";
static char crash_message[256] = "jq stopped\n";

// jq's allocator found no memory: nothing can be allocated, so one line and the exit code, at once.
static void out_of_memory(void *context) {
    (void)context;
    ssize_t written = write(STDERR_FILENO, nomem_message, strlen(nomem_message));
    (void)written;
    _exit(nomem_status);
}

// Inside a call into jq (the machine runs under a lock: one call at a time).
static volatile sig_atomic_t in_jq = 0;
static struct sigaction previous[3];
static const int guarded[3] = {SIGSEGV, SIGBUS, SIGABRT};

// jq 1.6 does not always reach its out-of-memory handler when the heap is exhausted: it may
// abort, or follow a pointer a failed allocation left. Inside jq that is the same end, said
// once; anywhere else the signal goes to whoever handled it before (Swift's backtracer).
static void crashed(int signal) {
    if (in_jq && signal == SIGABRT) out_of_memory(NULL);
    if (in_jq) {
        // A fault inside jq: memory ran out under it, or its C stack did (a value nested too
        // deep for jv_dump's recursion); this runs on the thread's alternate stack.
        ssize_t written = write(STDERR_FILENO, crash_message, strlen(crash_message));
        (void)written;
        _exit(nomem_status);
    }
    for (int index = 0; index < 3; index++) {
        if (guarded[index] == signal) sigaction(signal, &previous[index], NULL);
    }
    if (signal == SIGABRT) raise(signal);
}

void cjq_on_out_of_memory(int status, const char *message, const char *crash) {
    nomem_status = status;
    snprintf(nomem_message, sizeof nomem_message, "%s\n", message);
    snprintf(crash_message, sizeof crash_message, "%s\n", crash);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = crashed;
    // On the alternate stack (`guard_stack`): a stack overflow leaves no room on the thread's own.
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int index = 0; index < 3; index++) sigaction(guarded[index], &action, &previous[index]);
}

// An alternate signal stack for the thread about to call into jq, once per thread, so that
// `crashed` can run when jq overflows the thread's stack; a thread that has one keeps it.
static __thread int has_alternate_stack = 0;
static void guard_stack(void) {
    if (has_alternate_stack) return;
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE)) {
        has_alternate_stack = 1;
        return;
    }
    size_t size = 64 * 1024;
    void *memory = malloc(size);
    if (memory == NULL) return;
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = memory;
    stack.ss_size = size;
    if (sigaltstack(&stack, NULL) == 0) {
        has_alternate_stack = 1;  // kept for the thread's life: a pool thread runs jq again
    } else {
        free(memory);
    }
}

// jq keeps the handler per thread: set on the thread about to allocate.
static void guard_memory(void) {
    guard_stack();
    in_jq = 1;
    jq.nomem_handler(out_of_memory, NULL);
}

static void unguard(void) { in_jq = 0; }

cjq_state *cjq_compile(const char *program, char *errors, size_t size) {
    guard_memory();
    if (size > 0) errors[0] = 0;
    cjq_state *state = jq.init();
    if (state == NULL) {
        snprintf(errors, size, "out of memory");
        return NULL;
    }
    struct error_buffer buffer = {errors, size};
    jq.set_error_cb(state, collect_error, &buffer);
    int compiled = jq.compile(state, program);
    unguard();
    jq.set_error_cb(state, ignore_error, NULL);
    if (!compiled) {
        jq.teardown(&state);
        return NULL;
    }
    return state;
}

void cjq_teardown(cjq_state *state) { jq.teardown(&state); }

cjq_parser *cjq_parser_new(void) { return jq.parser_new(0); }
void cjq_parser_free(cjq_parser *parser) { jq.parser_free(parser); }
void cjq_parser_set_buf(cjq_parser *parser, const void *bytes, int length, int partial) {
    guard_memory();
    jq.parser_set_buf(parser, (const char *)bytes, length, partial);
    unguard();
}
cjq_jv cjq_parser_next(cjq_parser *parser) {
    guard_memory();
    cjq_jv value = jq.parser_next(parser);
    unguard();
    return value;
}

void cjq_start(cjq_state *state, cjq_jv input) {
    guard_memory();
    jq.start(state, input, 0);
    unguard();
}
cjq_jv cjq_next(cjq_state *state) {
    guard_memory();
    cjq_jv value = jq.next(state);
    unguard();
    return value;
}

int cjq_is_valid(cjq_jv value) { return jq.get_kind(value) != KIND_INVALID; }

char *cjq_output_text(cjq_jv value, size_t *length) {
    guard_memory();
    char *text = NULL;
    if (jq.get_kind(value) == KIND_STRING) {
        text = copy_string(value, length);
    } else {
        // Flags 0: compact, keys in their order (resv writes them sorted), no colour.
        cjq_jv dumped = jq.dump_string(value, 0);
        if (jq.get_kind(dumped) == KIND_STRING) {
            text = copy_string(dumped, length);
        } else {
            jq.free(dumped);
        }
    }
    unguard();
    return text;
}

char *cjq_error_text(cjq_jv invalid) {
    cjq_jv message = jq.invalid_get_msg(invalid);
    if (jq.get_kind(message) == KIND_NULL) {
        jq.free(message);
        return NULL;
    }
    return message_text(message);
}

int cjq_halted(cjq_state *state, char **message) {
    if (!jq.halted(state)) return 0;
    // `halt` leaves no status; `halt_error` sets one (5 unless given).
    cjq_jv status = jq.get_exit_code(state);
    int clean = jq.get_kind(status) == KIND_INVALID
        || (jq.get_kind(status) == KIND_NUMBER && jq.number_value(status) == 0);
    jq.free(status);
    if (clean) return 1;
    cjq_jv text = jq.get_error_message(state);
    if (jq.get_kind(text) == KIND_INVALID || jq.get_kind(text) == KIND_NULL) {
        jq.free(text);
        *message = strdup("halt_error");
    } else {
        *message = message_text(text);
    }
    return 2;
}
