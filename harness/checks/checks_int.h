/*
 * Internal to the conformance checks (checks.c and checks_*.c): the types
 * and helpers their files share.
 */
#ifndef TOOLWIRE_HARNESS_CHECKS_INT_H
#define TOOLWIRE_HARNESS_CHECKS_INT_H

#include "checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decode_opts.h"
#include "redact.h"
#include "toolwire/decode.h"
#include "toolwire/schema.h"
#include "toolwire/sse.h"
#include "toolwire/text.h"
#include "toolwire/vllm.h"

#define PUT tw_check_set_put

/* ---- id index: one sorted build, then binary searches ---- */

/*
 * Pairing results to calls (and finding a repeated id) looks ids up in an
 * index built once per list rather than comparing every pair, so a request
 * with n calls and n results costs O(n log n), whatever the ids are.
 */
typedef struct idx_ent {
    const char *id; /* not owned */
    size_t pos;     /* order of addition */
} idx_ent;

typedef struct id_index {
    idx_ent *v;
    size_t n, cap;
    bool nomem;
} id_index;

/* ---- SSE events of a judged body, framed by toolwire/sse.h ---- */

typedef struct sse_ev {
    char *type; /* the event: field, "message" when none was given */
    char *data; /* data lines joined with \n */
    size_t data_len;
    size_t off;         /* offset of the event's first field line in the body */
    tw_status over_cap; /* TW_OK, or the parser dropped the event: TW_D_SSE_LINE_TOO_LONG or
                         * TW_D_SSE_EVENT_TOO_LARGE (data "") */
    bool terminated;    /* false for a last event no blank line ended */
} sse_ev;

typedef struct sse_list {
    sse_ev *v;
    size_t n, cap;
    bool capped; /* events past the list's cap were dropped */
} sse_list;

/* ---- a light view of one response: what the checks compare ---- */

typedef struct vcall {
    char *id;
    char *name;
    cJSON *args; /* parsed object, or NULL */
    size_t off;
} vcall;

typedef struct rview {
    bool ok; /* the response could be read */
    tw_buf content;
    vcall *calls;
    size_t ncalls;
    size_t cap_calls;
    char *finish;
} rview;

typedef struct sidx {
    long index;
    char *id;
    char *type;
    char *name;
    tw_buf args;
    size_t off; /* offset of the first fragment's event */
} sidx;

typedef struct ostream {
    sidx *v;
    size_t n;
    size_t cap;
    size_t *slot; /* hash of index -> 1 + position of its latest call (0: empty) */
    size_t nslot; /* a power of two, at least twice n */
    tw_buf content;
    char *finish;
    bool role_first;
    bool any_chunk;
    size_t n_split;
    const char *reasoning_field;
} ostream;

/* The per-call checks shared by the streamed and the non-streamed forms:
 * R02 (ids, names), R03 (declared names), R04 (string arguments), R05
 * (schema), R06 (finish_reason), R07 (markup), R08 (reasoning field). */
typedef struct ocall {
    const char *id;
    const char *type; /* NULL when absent */
    const char *name;
    const cJSON *args; /* as sent: a string, or something else */
    size_t off;
} ocall;

/* The set being written by the running check function (set per call, never shared). */
typedef struct judge {
    const tw_judge_input *in;
    tw_check_set *out;
    tw_limits L;
} judge;

/*
 * The files of the checks, lowest first: check_set.c (the check set),
 * checks_util.c (the judge input's views: excerpts, SSE events, light views
 * of a response, the reference decoders), checks_oai_base.c (what the
 * OpenAI-shaped families share); the families (checks_openai.c,
 * checks_anthropic.c, checks_gemini.c, checks_responses.c,
 * checks_session.c, checks_text.c, checks_client.c), none of which calls
 * another; check_table.c (the families by name); checks.c (the dispatcher).
 */

/* One exchange as a family sees it. */
typedef struct tw_chk_exchange {
    tw_api_kind kind;  /* tw_path_kind of the request path */
    bool stream;       /* judged as a stream */
    const cJSON *body; /* the parsed body when not a stream, else NULL */
} tw_chk_exchange;

/* One row of the check table: a family of backend checks. */
typedef struct tw_check_family_def {
    const char *name;   /* "openai" */
    const char *judges; /* what it judges, one line */
    void (*judge)(judge *j, const tw_chk_exchange *x);
} tw_check_family_def;

/* check_table.c: every family, and one by name (NULL when unknown). */
const tw_check_family_def *tw_check_families(size_t *n);
const tw_check_family_def *tw_check_family_find(const char *name);

/* checks.c: the names of the families that judge a format (by tw_path_kind; any other
 * kind: the families of an unknown endpoint), in the order they run, NULL-ended. */
const char *const *tw_checks_families_of(tw_api_kind kind);

/* check_set.c */
/* Skip each of ids without a verdict; why is a literal (tw_check_set_put_static). */
void tw_chk_skip_ids(tw_check_set *out, const tw_check_id *ids, size_t n, const char *why);

/* checks_util.c */
cJSON *tw_chk_parse_json(const char *p, size_t n, size_t depth);
void tw_chk_excerpt(char *dst, size_t dn, const char *p0, size_t n0);
const char *tw_chk_clip(char *buf, size_t bn, const char *s, size_t max);
void tw_chk_excerpt_json(char *dst, size_t dn, const cJSON *v);
int64_t tw_chk_find_off(const tw_judge_input *in, const char *needle);
const char *tw_chk_header(const tw_kv *kv, size_t n, const char *name);
bool tw_chk_ctype_is(const tw_judge_input *in, const char *want);
bool tw_chk_str_nonempty(const cJSON *v);
void tw_chk_idx_add(id_index *x, const char *id);
void tw_chk_idx_seal(id_index *x);
bool tw_chk_idx_has(const id_index *x, const char *id);
void tw_chk_idx_free(id_index *x);
void tw_chk_idx_of_list(id_index *x, const cJSON *list, const char *idkey);
void tw_chk_sse_free(sse_list *l);
/* Frame b[0, n) as SSE with the library's parser under limits' line and
 * event caps (a line may be as long as an event). Events without a data
 * line are none (the SSE rules); an event the parser drops over a cap is
 * kept with over_cap set. */
void tw_chk_sse_parse(const char *b, size_t n, const tw_limits *limits, sse_list *out);
void tw_chk_rview_free(rview *v);
void tw_chk_rview_add(rview *v, const char *id, const char *name, cJSON *args, size_t off);
cJSON *tw_chk_args_value(const cJSON *a, size_t depth);
void tw_chk_content_text(const cJSON *c, tw_buf *out);
const cJSON *tw_chk_oai_message(const cJSON *body);
void tw_chk_view_openai(const cJSON *body, size_t depth, rview *v);
void tw_chk_view_anthropic(const cJSON *body, rview *v);
void tw_chk_view_generate(const cJSON *body, size_t depth, rview *v);
/* The options a model text is decoded with for judging: the fixture's decode
 * options, their tools or else the request's (so values are typed by the
 * schema), the judge's limits. tw_opts_holder_free it. */
void tw_chk_model_opts(judge *j, const tw_fx_exchange *ex, tw_opts_holder *h);
/* The model dialect the exchange's model text is in (the decoder of a dialect
 * profile of the table of formats, qwen3-coder aside: QWX-* judge it), or NULL
 * (ex may be NULL). DLX-* judge such text; the Hermes checks step aside. */
const char *tw_chk_ex_dialect(const tw_fx_exchange *ex);

/* checks_oai_base.c */
void tw_chk_ostream_free(ostream *s);
sidx *tw_chk_ostream_idx(ostream *s, long index, size_t off, bool *fresh);
/* A new latest call at index (a later call reusing the index): NULL out of memory. */
sidx *tw_chk_ostream_new(ostream *s, long index, size_t off);
void tw_chk_ocall_checks(judge *j, const ocall *c, size_t n, const char *finish, int64_t fin_off,
                         const char *content, size_t clen, int64_t content_off,
                         const char *reasoning, bool streamed, size_t legacy_calls,
                         const char *shape_error);
void tw_chk_oai_error(judge *j, const cJSON *body);

/* checks_openai.c */
void tw_chk_oai_response(judge *j, const cJSON *body);
void tw_chk_oai_stream(judge *j, ostream *st);
void tw_chk_oai_s07(judge *j, const ostream *st);

/* checks_anthropic.c */
void tw_chk_ant_response(judge *j, const cJSON *body);
void tw_chk_ant_stream(judge *j);

/* checks_text.c */
void tw_chk_hermes_checks(judge *j, tw_api_kind kind, bool stream);
/* QWX-01, QWX-02: an exchange whose model text decodes as qwen3-coder. */
void tw_chk_qwx_checks(judge *j, tw_api_kind kind, bool stream);
void tw_chk_vln_checks(judge *j, const cJSON *body);

/* checks_dialect.c */
/* DLX-01…05: an exchange whose model text is in a model dialect (the
 * decoder of a dialect profile of the table of formats, qwen3-coder aside:
 * QWX-* judge it). */
void tw_chk_dialect_checks(judge *j, bool stream);
void tw_chk_num_stream_spelling(judge *j, bool stream);
void tw_chk_num_model_values(judge *j, tw_api_kind kind, bool stream);

/* checks_gemini.c */
void tw_chk_gem_checks(judge *j, const cJSON *body, bool stream);
void tw_chk_gem_client(const cJSON *body, tw_check_set *out);
/* checks_responses.c: the ORS-* checks of a …/responses answer, their
 * skips, and the client checks of a Responses request */
void tw_chk_ors_checks(judge *j, bool stream, const cJSON *body);
void tw_chk_ors_skip(tw_check_set *out, const char *why);
void tw_chk_cli_responses(const cJSON *body, tw_check_set *out);

/* checks_client.c: CLI-01..06 and CLI-08's skip over a chat request (kind OpenAI, Anthropic or
 * other) */
void tw_chk_cli_chat(tw_api_kind kind, const cJSON *body, tw_check_set *out);

/* checks_session.c */
void tw_chk_ses_checks(judge *j, bool stream, const cJSON *body);

#endif
