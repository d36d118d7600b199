// libjq for resv's --jq, loaded with dlopen on first use: commands without --jq (and
// `resv --version`) never load it, and building needs no libjq-dev.
//
// `cjq_jv` is jq's `jv` (src/jv.h, the same in jq 1.6 and 1.7): a 16-byte struct
// passed by value, declared here with its layout so the wrappers can pass it on.
// The wrappers keep jq's rules of who frees a jv ("consumes") in C: each says
// which of its arguments it consumes.

#ifndef CJQ_H
#define CJQ_H

#include <stddef.h>

typedef struct cjq_state cjq_state;    // jq_state
typedef struct cjq_parser cjq_parser;  // struct jv_parser

typedef struct {
    unsigned char kind_flags;
    unsigned char pad_;
    unsigned short offset;
    int size;
    union {
        void *ptr;
        double number;
    } u;
} cjq_jv;

/// Loads libjq.so.1, once per process; later calls return the first call's outcome.
/// 0 when loaded; otherwise -1, and `*error` (if given) points to a static message.
int cjq_load(const char **error);

/// `program` compiled; NULL when it does not compile, with jq's messages in `errors`
/// (NUL-terminated, one a line, cut at `size`).
cjq_state *cjq_compile(const char *program, char *errors, size_t size);
void cjq_teardown(cjq_state *state);

/// A parser of a stream of JSON texts, fed in pieces.
cjq_parser *cjq_parser_new(void);
void cjq_parser_free(cjq_parser *parser);
/// The next piece; `partial` 0 for the end of the stream. The bytes must stay until
/// cjq_parser_next has returned an invalid value.
void cjq_parser_set_buf(cjq_parser *parser, const void *bytes, int length, int partial);
/// The next whole value; invalid with no message when the piece is used up, invalid
/// with a message (cjq_error_text) for text that is not JSON.
cjq_jv cjq_parser_next(cjq_parser *parser);

/// When jq cannot allocate memory (its jv allocator, which otherwise aborts): `message`
/// (copied, up to 255 bytes) written to stderr and the process ended with `status`, the
/// only thing left to do once the heap is exhausted. A fault inside jq (SIGSEGV, SIGBUS:
/// memory ran out under it, or a value nested too deep overflowed its C stack, handled on
/// an alternate stack each thread is given) writes `crash` instead, with the same status.
/// Takes effect on each thread that then parses or runs the program.
void cjq_on_out_of_memory(int status, const char *message, const char *crash);

/// Runs the program on `input` (consumed); its results come from cjq_next.
void cjq_start(cjq_state *state, cjq_jv input);
/// The next result; invalid when there are no more (no message) or the program failed.
cjq_jv cjq_next(cjq_state *state);

/// Whether `value` is valid (not consumed).
int cjq_is_valid(cjq_jv value);
/// A result as text (consumed): a string as itself, anything else as compact JSON.
/// malloc'd, `*length` bytes (a string may hold NULs); NULL when out of memory.
char *cjq_output_text(cjq_jv value, size_t *length);
/// The message of an invalid value (consumed): malloc'd, or NULL when it has none.
char *cjq_error_text(cjq_jv invalid);
/// After cjq_next returned an invalid value without a message: 0 when the program has
/// ended, 1 when it ran `halt` (or `halt_error` with status 0), 2 when `halt_error`
/// ended it with another status, its message malloc'd in `*message`.
int cjq_halted(cjq_state *state, char **message);

#endif
