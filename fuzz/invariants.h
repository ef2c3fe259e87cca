/*
 * The invariants every fuzz target asserts, shared by the libFuzzer targets
 * (fuzz/target.c, built once per target) and the regression replay test
 * (tests/fuzz/test_fuzz_regressions.c). docs/fuzzing.md lists them with their reasons.
 *
 * Input layout of the decoder targets: TW_FZ_HDR header bytes that choose
 * the decode options, the limits and the chunking, then the decoder's input.
 * A shorter input is read as if padded with zero bytes (defaults, empty body).
 *
 *   byte 0  bit 0 forced_open       bit 1 unterminated=direct  bit 2 bare_json
 *           bit 3 allow_unknown_tool bit 4 schema_warn          bit 5 declare the test tools
 *           bits 6-7 think_tags (0 both, 1 think, 2 thinking, 3 both)
 *   byte 1  bits 0-1 finish (0 stop, 1 length, 2 stop_sequence, 3 stop)
 *           bits 2-7 largest chunk of the streaming pass, 1 + 4 * value bytes
 *   byte 2  which limits are small: bit 0 max_args_bytes, bit 1 max_calls,
 *           bit 2 max_depth, bit 3 max_input_bytes, bit 4 max_diags,
 *           bit 5 max_line_bytes / max_event_bytes
 *           bit 6 an empty declared tool list (when byte 0 bit 5 is clear)
 *   byte 3  max_args_bytes = 1 + 8 * value
 *   byte 4  max_calls = 1 + (value & 7), max_depth = 1 + (value >> 3)
 *   byte 5  max_input_bytes = 1 + 16 * value
 *   byte 6  max_diags = 1 + (value & 7), max_line_bytes = 8 + 32 * (value >> 3),
 *           max_event_bytes = 2 * max_line_bytes
 *   byte 7  seed of the chunk sizes (0: one byte at a time); in the stream
 *           targets its low bit also picks the second stream: one byte at a
 *           time (odd, bodies of at most 4 KiB) or one feed (even); bits 1
 *           and 2 both clear: the batch decode runs twice (determinism)
 *
 * Every check aborts the process with a message on stderr when it fails: a
 * libFuzzer crash, a failed test.
 */
#ifndef TOOLWIRE_FUZZ_INVARIANTS_H
#define TOOLWIRE_FUZZ_INVARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include "format_table.h" /* src/ */
#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_FZ_HDR 8

/* Fuzz targets, one per libFuzzer binary, as the table of formats lists
 * them (src/format_table.h): the decoders' targets (fuzz/invariants.c) and
 * the others (TW_FUZZ_OTHER_TARGETS: schema in fuzz/invariants.c, request,
 * redact, report, sse, fixture, import and json_diff in fuzz/inv_<target>.c;
 * those not built yet are declared, not defined). Each returns 0
 * (libFuzzer's convention) or aborts on a violated invariant. */
#define TW_FZ_DECLARE_TARGET(t, ...) int tw_fz_##t(const uint8_t *data, size_t size);
#define TW_FZ_DECLARE_DECODER(sym, nm, fam, fuzz) TW_FUZZ_EACH(TW_FZ_DECLARE_TARGET, nm, fuzz)
#define TW_FZ_NONE3(a, b, c)
#define TW_FZ_NONE4(a, b, c, d)
TW_FORMAT_TABLE(TW_FZ_DECLARE_DECODER, TW_FZ_NONE4, TW_FZ_NONE3)
TW_FUZZ_OTHER_TARGETS(TW_FZ_DECLARE_TARGET)
#undef TW_FZ_DECLARE_DECODER
#undef TW_FZ_NONE3
#undef TW_FZ_NONE4

/* Target by name ("hermes_stream"); NULL when unknown or not built. */
typedef int (*tw_fz_fn)(const uint8_t *data, size_t size);
tw_fz_fn tw_fz_target(const char *name);
/* NULL-terminated names of every target this build has. */
const char *const *tw_fz_target_names(void);
/* NULL-terminated names of every target of the table, built or not. */
const char *const *tw_fz_table_target_names(void);

/* Name of the input being replayed, printed with a violation (may be NULL). */
void tw_fz_set_input_name(const char *name);

/* ---- helpers shared by the target files ---- */

/* Decoder options, limits and chunk plan read from the header. */
typedef struct tw_fz_setup {
    tw_decode_opts o;
    tw_limits L;       /* resolved limits */
    unsigned plan_max; /* largest chunk, bytes */
    unsigned seed;     /* 0: one byte at a time */
    const uint8_t *body;
    size_t len;
} tw_fz_setup;

void tw_fz_read_header(const uint8_t *data, size_t size, tw_fz_setup *s);
/* Next chunk length for a plan (state starts at the seed). */
size_t tw_fz_next_chunk(unsigned *state, unsigned plan_max, size_t left);

/* The streams one decoder input gets (docs/fuzzing.md): plans[i] is a chunk
 * plan's seed (0: one byte at a time), wholes[i] true for the whole body in
 * one feed; returns how many (1 for a batch target, 2 for a stream target,
 * 3 for a stream target under tw_fz_set_every_stream). */
size_t tw_fz_stream_plans(const tw_fz_setup *s, bool stream_target, unsigned plans[3],
                          bool wholes[3]);
/* Stream targets run every stream kind for each input (the regression replay
 * of fuzz/regressions/ does), not the one the seed picks. */
void tw_fz_set_every_stream(bool on);

/* The request target's reader for a seed byte: the reader whose own value
 * tw_fz_request_ring(name) (FNV-1a of its name, modulo 256) the byte is,
 * else the byte's index modulo the number of readers (table order). */
struct tw_request_reader_ops;
unsigned tw_fz_request_ring(const char *name);
const struct tw_request_reader_ops *tw_fz_request_reader(unsigned seed);
/* Does this input get the second batch decode (the same input twice gives
 * the same result)? Those whose seed byte has bits 1 and 2 clear, a quarter;
 * every input under tw_fz_set_every_stream(true). */
bool tw_fz_check_twice(const tw_fz_setup *s);

/* Is m safe text, as every stored diagnostic and error message must be
 * (include/toolwire/core.h): valid UTF-8 (RFC 3629), no byte below 0x20, no
 * 0x7F? When not, *bad is the index of the first byte that breaks it. */
bool tw_fz_safe_text(const char *m, size_t *bad);
/* Abort unless m is safe text; `what` names it in the message. */
void tw_fz_check_text(const char *m, const char *what);

/* Abort with a formatted message. */
void tw_fz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
#define TW_FZ_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            tw_fz_fail(__VA_ARGS__);                                                               \
    } while (0)

/*
 * Memory accounting through the sanitizer allocator hooks: live bytes and
 * the peak since the last mark. Without a sanitizer (plain test build)
 * tw_fz_mem_enabled() is false and the memory checks are skipped.
 */
bool tw_fz_mem_enabled(void);
void tw_fz_mem_mark(void); /* peak := live */
int64_t tw_fz_mem_live(void);
int64_t tw_fz_mem_peak(void);

/* The memory bound of one decode (docs/fuzzing.md): 64 * input length plus a
 * constant from the limits. */
int64_t tw_fz_mem_bound(size_t len, const tw_limits *L);

/* An exact-size heap copy (so a read one past the end is caught). */
char *tw_fz_copy(const void *p, size_t n);

/* Under ASan, mark bytes of such a copy unreadable / readable again (a
 * streamed piece is fed from the copy with the rest poisoned); no-ops
 * without ASan. */
void tw_fz_poison(const void *p, size_t n);
void tw_fz_unpoison(const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
