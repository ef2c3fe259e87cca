/*
 * Gemini generateContent: the response body ("gemini") and the
 * streamGenerateContent?alt=sse event stream ("gemini-stream"). Both hand
 * each GenerateContentResponse to one reader (struct gem_acc), which walks
 * candidates[0].content.parts[] in order: text to content, thought text to
 * thinking, the first thoughtSignature to thinking_signature, and calls,
 * whole or assembled from streamed partialArgs, through the shared call
 * rules (calls.h). The rules are in docs/formats/gemini.md.
 */
#include "alloc.h"
#include "toolwire/gemini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "json_marks.h"
#include "wire_common.h"
#include "wire_stream.h"
#include "work.h"
#include "toolwire/decode.h"

const char *tw_gemini_finish_reason(const char *reason, bool has_calls)
{
    static const char *const filtered[] = {
        "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"};
    if (!reason)
        return NULL;
    if (strcmp(reason, "STOP") == 0)
        return has_calls ? "tool_calls" : "stop";
    if (strcmp(reason, "MAX_TOKENS") == 0)
        return "length";
    for (size_t i = 0; i < sizeof filtered / sizeof *filtered; i++)
        if (strcmp(reason, filtered[i]) == 0)
            return "content_filter";
    return reason;
}

/* ===================== the reader of one response ===================== */

/* Part kinds the neutral result has no place for, each reported once. */
static const char *const UNCARRIED_PARTS[] = {"inlineData",       "fileData",
                                              "executableCode",   "codeExecutionResult",
                                              "functionResponse", "videoMetadata"};
enum { N_UNCARRIED = sizeof UNCARRIED_PARTS / sizeof *UNCARRIED_PARTS };

/*
 * What the parts of one message build up across responses: the open call
 * (a functionCall with willContinue, its arguments assembled from
 * partialArgs pieces), the string value a piece continues, the finish
 * reason, and which one-time warnings were given.
 */
typedef struct gem_acc {
    tw_wire_sink k;
    /* the open call */
    bool open;
    char *name;
    char *id;
    cJSON *holder; /* {"args": {…}}: the arguments being assembled */
    int64_t call_off;
    int64_t ev_off;     /* the part being read: its event's offset in a stream */
    int64_t refuse_off; /* where the reason to refuse was found */
    bool copy_args;     /* the parts' tree lies in an arena: args are copied, not moved */
    tw_status refuse;   /* the call is refused when it ends (TW_OK: not) */
    char why[224];      /* its text, as long as a tw_error message */
    size_t arg_bytes;   /* piece bytes taken, against max_args_bytes */
    /* the string value being continued across pieces (willContinue) */
    bool sopen;
    char *spath;
    cJSON *snode;
    tw_buf sbuf;
    /* the message */
    char *finish; /* the last finishReason seen, as given */
    bool finish_seen;
    bool blocked; /* promptFeedback.blockReason reported */
    bool warned_candidates;
    bool warned_signature;
    bool warned_part[N_UNCARRIED];
} gem_acc;

static void acc_init(gem_acc *a, tw_wire_sink k)
{
    memset(a, 0, sizeof *a);
    a->k = k;
    a->sbuf.max = k.L->max_args_bytes + 1;
}

static void call_reset(gem_acc *a)
{
    tw_free(a->name);
    tw_free(a->id);
    cJSON_Delete(a->holder);
    tw_free(a->spath);
    tw_buf_free(&a->sbuf); /* keeps its cap */
    a->open = a->sopen = false;
    a->name = a->id = a->spath = NULL;
    a->holder = NULL;
    a->snode = NULL;
    a->refuse = TW_OK;
    a->why[0] = '\0';
    a->arg_bytes = 0;
}

static void acc_release(gem_acc *a)
{
    call_reset(a);
    tw_free(a->finish);
    a->finish = NULL;
}

static tw_status warn_once(gem_acc *a, bool *flag, int64_t off, const char *msg)
{
    if (*flag)
        return TW_OK;
    *flag = true;
    return tw_wire_diag(&a->k, false, TW_D_NOT_CARRIED, off, msg);
}

/* Refuse the open call when it ends; the first reason found is kept, with
 * the offset of the part (in a stream, the event) that gave it. */
static void call_refuse(gem_acc *a, tw_status code, const char *why)
{
    if (a->refuse)
        return;
    a->refuse = code;
    a->refuse_off = a->ev_off;
    snprintf(a->why, sizeof a->why, "%.223s", why);
}

/* ---- partialArgs: assembling arguments from pieces ---- */

/* One step of a jsonPath: a key (NUL-terminated in place) or an index. */
typedef struct gem_step {
    char *key; /* NULL: an array index */
    size_t index;
} gem_step;

/*
 * The next step of the mutable path text at *p: ".key", "[N]", "['key']"
 * or "[\"key\"]". Returns 1 with *s set, 0 at the end, -1 when malformed.
 * Keys are cut in place (the byte after them becomes NUL), so a step reads
 * the byte it needs before the previous step's cut (held in *pending).
 */
static int next_step(char **p, char *pending, gem_step *s)
{
    char *q = *p;
    char c = *pending ? *pending : *q;
    *pending = '\0';
    if (c == '\0')
        return 0;
    if (c == '.') {
        char *k = q + 1;
        size_t n = strcspn(k, ".[");
        if (n == 0)
            return -1;
        *pending = k[n];
        k[n] = '\0';
        s->key = k;
        *p = k + n;
        return 1;
    }
    if (c != '[')
        return -1;
    q++;
    if (*q == '\'' || *q == '"') {
        char quote = *q;
        char *k = q + 1;
        char *end = strchr(k, quote);
        if (!end || end[1] != ']')
            return -1;
        *end = '\0';
        s->key = k;
        *p = end + 2;
        return 1;
    }
    size_t v = 0, nd = 0;
    for (; *q >= '0' && *q <= '9'; q++, nd++) {
        if (v > (SIZE_MAX - 9) / 10)
            return -1;
        v = v * 10 + (size_t)(*q - '0');
    }
    if (nd == 0 || *q != ']')
        return -1;
    s->key = NULL;
    s->index = v;
    *p = q + 1;
    return 1;
}

/* Elements of an array made here, kept in its (otherwise unused) valueint
 * so that appending and finding the last element cost O(1). */
static size_t arr_count(const cJSON *arr)
{
    return arr->valueint > 0 ? (size_t)arr->valueint : 0;
}

static bool add_to(cJSON *cur, const gem_step *s, cJSON *item)
{
    if (s->key)
        return cJSON_AddItemToObject(cur, s->key, item);
    if (!cJSON_AddItemToArray(cur, item))
        return false;
    cur->valueint++;
    return true;
}

/* The last member or element of cur: pieces arrive in document order, so a
 * step names either it or a new one. */
static cJSON *last_child(const cJSON *cur)
{
    return cur->child ? cur->child->prev : NULL;
}

/*
 * Place `val` (owned: freed on every refusal) at the jsonPath `path` in the
 * open call's arguments. Returns TW_ERR_NOMEM or TW_OK; a path that cannot
 * be followed refuses the call.
 */
static tw_status place(gem_acc *a, const char *path, cJSON *val)
{
    const tw_limits *L = a->k.L;
    char *text = tw_strdup(path);
    if (!text) {
        cJSON_Delete(val);
        return TW_ERR_NOMEM;
    }
    cJSON *cur = tw_json_get(a->holder, "args");
    char *p = text + 1;
    char pending = '\0';
    gem_step s, nx;
    int r = text[0] == '$' ? next_step(&p, &pending, &s) : -1;
    const char *bad = r == 0 ? "jsonPath names the arguments object itself" : NULL;
    size_t depth = 1;
    TW_WORK(strlen(path)); /* the path is read once; each step below costs O(1) */
    while (!bad && r == 1) {
        int rn = next_step(&p, &pending, &nx);
        if (rn < 0)
            break;
        if (++depth > L->max_depth) {
            call_refuse(a, TW_D_JSON_TOO_DEEP, "a partialArgs jsonPath is deeper than max_depth");
            break;
        }
        if ((s.key != NULL) != cJSON_IsObject(cur)) {
            bad = "a jsonPath step does not match the value it goes through";
            break;
        }
        cJSON *last = last_child(cur);
        bool same = last && (s.key ? (last->string && strcmp(last->string, s.key) == 0)
                                   : s.index + 1 == arr_count(cur));
        if (!s.key && !same && s.index != arr_count(cur)) {
            bad = "a jsonPath array index is out of order";
            break;
        }
        if (rn == 0) { /* the leaf: a repeated key is left to the duplicate_key rule */
            if (!s.key && same) {
                bad = "a jsonPath sets an array element twice";
                break;
            }
            if (!add_to(cur, &s, val)) {
                tw_free(text);
                cJSON_Delete(val);
                return TW_ERR_NOMEM;
            }
            val = NULL;
            break;
        }
        if (same && (nx.key ? cJSON_IsObject(last) : cJSON_IsArray(last))) {
            cur = last;
        } else if (same) {
            bad = "a jsonPath goes through a value that is not a container";
            break;
        } else {
            cJSON *c = nx.key ? cJSON_CreateObject() : cJSON_CreateArray();
            if (!c || !add_to(cur, &s, c)) {
                cJSON_Delete(c);
                tw_free(text);
                cJSON_Delete(val);
                return TW_ERR_NOMEM;
            }
            cur = c;
        }
        s = nx;
    }
    if (val && !bad && !a->refuse)
        bad = "a partialArgs jsonPath is malformed";
    if (bad) {
        char why[200];
        snprintf(why, sizeof why, "%s: '%.100s'", bad, path);
        call_refuse(a, TW_D_TOOL_CALL_JSON, why);
    }
    tw_free(text);
    cJSON_Delete(val);
    return TW_OK;
}

/* The string value continued across pieces is complete: write it. */
static tw_status string_close(gem_acc *a)
{
    if (!a->sopen)
        return TW_OK;
    tw_status st = TW_OK;
    if (a->snode && !a->refuse && !cJSON_SetValuestring(a->snode, a->sbuf.data ? a->sbuf.data : ""))
        st = TW_ERR_NOMEM;
    tw_free(a->spath);
    a->spath = NULL;
    a->snode = NULL;
    a->sopen = false;
    a->sbuf.len = 0;
    return st;
}

/* Count bytes of the open call's pieces; past max_args_bytes refuse it. */
static bool take_bytes(gem_acc *a, size_t n)
{
    if (a->refuse)
        return false;
    if (n > a->k.L->max_args_bytes - a->arg_bytes) {
        char why[120];
        snprintf(why, sizeof why, "streamed arguments exceed max_args_bytes (%zu)",
                 a->k.L->max_args_bytes);
        call_refuse(a, TW_D_ARGS_TOO_LARGE, why);
        return false;
    }
    a->arg_bytes += n;
    return true;
}

static tw_status piece(gem_acc *a, const cJSON *pc)
{
    const char *path = tw_json_get_str(pc, "jsonPath");
    if (!cJSON_IsObject(pc) || !path) {
        call_refuse(a, TW_D_TOOL_CALL_JSON, "a partialArgs piece has no jsonPath");
        return TW_OK;
    }
    const cJSON *sv = tw_json_get(pc, "stringValue");
    bool more = cJSON_IsTrue(tw_json_get(pc, "willContinue"));
    tw_status st = TW_OK;
    if (a->sopen && (!cJSON_IsString(sv) || strcmp(path, a->spath) != 0))
        st = string_close(a);
    if (st != TW_OK ||
        !take_bytes(a, strlen(path) + (cJSON_IsString(sv) ? strlen(sv->valuestring) : 8)))
        return st;
    if (cJSON_IsString(sv) && a->sopen) { /* a continued string */
        if (tw_buf_puts(&a->sbuf, sv->valuestring) == TW_ERR_NOMEM)
            return TW_ERR_NOMEM;
        return more ? TW_OK : string_close(a);
    }
    cJSON *val = NULL;
    const cJSON *v;
    if (cJSON_IsString(sv))
        val = cJSON_CreateString(more ? "" : sv->valuestring);
    else if (cJSON_IsNumber(v = tw_json_get(pc, "numberValue")))
        val = cJSON_Duplicate(v, 1);
    else if (cJSON_IsBool(v = tw_json_get(pc, "boolValue")))
        val = cJSON_CreateBool(cJSON_IsTrue(v));
    else if ((v = tw_json_get(pc, "nullValue")) != NULL)
        val = cJSON_CreateNull();
    else {
        call_refuse(a, TW_D_TOOL_CALL_JSON, "a partialArgs piece has no value");
        return TW_OK;
    }
    if (!val)
        return TW_ERR_NOMEM;
    cJSON *node = val;
    if ((st = place(a, path, val)) != TW_OK || a->refuse)
        return st;
    if (cJSON_IsString(sv) && more) {
        a->sopen = true;
        a->snode = node;
        a->sbuf.len = 0;
        if (!(a->spath = tw_strdup(path)) || tw_buf_puts(&a->sbuf, sv->valuestring) == TW_ERR_NOMEM)
            return TW_ERR_NOMEM;
    }
    return TW_OK;
}

/* Array element counts were kept in valueint; clear them before the
 * arguments leave (depth is bounded by max_depth). */
static void clear_counts(cJSON *v)
{
    for (cJSON *c = v ? v->child : NULL; c; c = c->next)
        clear_counts(c);
    if (cJSON_IsArray(v))
        v->valueint = 0;
}

/* The open call ends: it goes through the shared rules (or is refused). */
static tw_status call_close(gem_acc *a)
{
    if (!a->open)
        return TW_OK;
    tw_status st = string_close(a);
    if (st == TW_OK) {
        cJSON *args = tw_json_get(a->holder, "args");
        clear_counts(args);
        tw_wire_call c;
        memset(&c, 0, sizeof c);
        /* a refusal is at the bytes that caused it, not at the call's start */
        c.offset = a->refuse ? a->refuse_off : a->call_off;
        c.refuse = a->refuse;
        c.refuse_why = a->why;
        c.id = a->id;
        c.name = a->name;
        c.args_value = args;
        c.args_native = true;
        c.args_owner = a->holder;
        st = tw_wire_take_call(&a->k, &c);
    }
    call_reset(a);
    return st;
}

static tw_status call_start(gem_acc *a, const cJSON *fc, int64_t off)
{
    const char *name = tw_json_get_str(fc, "name");
    const char *id = tw_json_get_str(fc, "id");
    a->open = true;
    a->call_off = off;
    tw_error why;
    if (tw_call_object_check(fc, &why))
        call_refuse(a, why.code, why.message);
    if ((name && !(a->name = tw_strdup(name))) || (id && !(a->id = tw_strdup(id))))
        return TW_ERR_NOMEM;
    a->holder = cJSON_CreateObject();
    if (!a->holder || !cJSON_AddObjectToObject(a->holder, "args"))
        return TW_ERR_NOMEM;
    return TW_OK;
}

/* One functionCall part. fc belongs to the caller's parsed response; its
 * args object is moved out of it, or copied when the tree lies in an arena
 * (a->copy_args). */
/* holder's "args" := v; false when memory ran out (v then freed or owned by
 * holder). cJSON 1.7.15 replaces even when its copy of the key fails, leaving
 * v in holder without a key. */
static bool replace_args(cJSON *holder, cJSON *v)
{
    if (!cJSON_ReplaceItemInObject(holder, "args", v)) {
        cJSON_Delete(v);
        return false;
    }
    return v->string != NULL;
}

static tw_status function_call(gem_acc *a, cJSON *fc, int64_t off)
{
    tw_status st = TW_OK;
    bool has_name = tw_json_get(fc, "name") || tw_json_get(fc, "id");
    cJSON *args = tw_json_get(fc, "args");
    const cJSON *pieces = tw_json_get(fc, "partialArgs");
    bool more = cJSON_IsTrue(tw_json_get(fc, "willContinue"));
    if (has_name && a->open) /* a new call begins: the open one ends here */
        st = call_close(a);
    a->ev_off = off;
    if (st != TW_OK)
        return st;
    if (!a->open) {
        if (!has_name && !args && !pieces && !more)
            return TW_OK; /* the end marker {} of a call already ended */
        if ((st = call_start(a, fc, off)) != TW_OK)
            return st;
    }
    if (tw_json_tainted(fc))
        call_refuse(a, TW_D_JSON_NUL, "the functionCall held U+0000; the call is refused");
    if (args && !cJSON_IsNull(args)) {
        cJSON *have = tw_json_get(a->holder, "args");
        if (have->child) {
            call_refuse(a, TW_D_TOOL_CALL_JSON, "a functionCall gave args after partialArgs");
        } else if (!cJSON_IsObject(args) || a->copy_args) {
            /* a non-object is kept as given (the shared rules parse a string
             * or refuse); an object is copied when its event's tree is in
             * the decoder's arena, dropped whole */
            cJSON *dup = cJSON_Duplicate(args, 1);
            if (!dup)
                return TW_ERR_NOMEM;
            if (!replace_args(a->holder, dup))
                return TW_ERR_NOMEM;
        } else {
            cJSON_DetachItemViaPointer(fc, args);
            if (!replace_args(a->holder, args))
                return TW_ERR_NOMEM;
        }
    }
    if (pieces && !cJSON_IsArray(pieces))
        call_refuse(a, TW_D_TOOL_CALL_JSON, "partialArgs is not an array");
    else if (pieces && !cJSON_IsObject(tw_json_get(a->holder, "args")))
        call_refuse(a, TW_D_TOOL_CALL_JSON, "a functionCall gave partialArgs after args");
    for (const cJSON *pc = pieces ? pieces->child : NULL; st == TW_OK && pc && !a->refuse;
         pc = pc->next)
        st = piece(a, pc);
    if (st == TW_OK && !more)
        st = call_close(a);
    return st;
}

static tw_status part(gem_acc *a, cJSON *pt, int64_t off)
{
    if (!cJSON_IsObject(pt))
        return tw_wire_diag(&a->k, true, TW_D_RESPONSE_SHAPE, off, "a part is not an object");
    tw_status st = TW_OK;
    const char *sig = tw_json_get_str(pt, "thoughtSignature");
    if (sig && (st = tw_wire_keep_signature(&a->k, sig, strlen(sig), &a->warned_signature, off,
                                            "thoughtSignature")) != TW_OK)
        return st;
    const char *text = tw_json_get_str(pt, "text");
    cJSON *fc = tw_json_get(pt, "functionCall");
    if (!fc && tw_json_tainted(pt))
        return tw_wire_diag(&a->k, true, TW_D_JSON_NUL, off,
                            "a part held U+0000; the part was dropped");
    if (text) {
        bool thought = cJSON_IsTrue(tw_json_get(pt, "thought"));
        st = tw_wire_text(&a->k, thought ? TW_EV_THINKING : TW_EV_CONTENT, text, strlen(text));
    } else if (cJSON_IsObject(fc)) {
        st = function_call(a, fc, off);
    } else if (fc) {
        st = tw_wire_diag(&a->k, true, TW_D_TOOL_CALL_JSON, off, "functionCall is not an object");
    } else {
        for (size_t i = 0; st == TW_OK && i < N_UNCARRIED; i++)
            if (tw_json_get(pt, UNCARRIED_PARTS[i])) {
                char msg[120];
                snprintf(msg, sizeof msg, "%s parts have no place in the result",
                         UNCARRIED_PARTS[i]);
                st = warn_once(a, &a->warned_part[i], off, msg);
            }
    }
    return st;
}

/*
 * Where a reader finds byte offsets: a batch body locates each part in the
 * text (buf, with the path to the response); a stream gives every part the
 * offset of its event (buf NULL).
 */
typedef struct gem_where {
    const char *buf;
    size_t len;
    tw_wire_step path[7]; /* [index,] "candidates", i, "content", "parts" */
    size_t npath;
    int64_t at; /* the response's own offset */
} gem_where;

static tw_status candidate(gem_acc *a, cJSON *cand, gem_where *w, size_t ci)
{
    tw_status st = TW_OK;
    const char *fr = tw_json_get_str(cand, "finishReason");
    if (fr) {
        tw_free(a->finish);
        if (!(a->finish = tw_strdup(fr)))
            return TW_ERR_NOMEM;
        a->finish_seen = true;
        if (strcmp(fr, "MALFORMED_FUNCTION_CALL") == 0 || strcmp(fr, "UNEXPECTED_TOOL_CALL") == 0) {
            const char *fm = tw_json_get_str(cand, "finishMessage");
            char msg[300];
            snprintf(msg, sizeof msg, "finishReason %s: %.200s", fr, fm ? fm : "(no message)");
            if ((st = tw_wire_diag(&a->k, true, TW_D_TOOL_CALL_JSON, w->at, msg)) != TW_OK)
                return st;
        }
    }
    const cJSON *content = tw_json_get(cand, "content");
    cJSON *parts = tw_json_get(content, "parts");
    if (!parts || cJSON_IsNull(parts))
        return TW_OK;
    if (!cJSON_IsArray(parts))
        return tw_wire_diag(&a->k, true, TW_D_RESPONSE_SHAPE, w->at,
                            "candidates[].content.parts is not an array");
    tw_wire_cursor cur;
    bool located = false;
    if (w->buf) {
        size_t n = w->npath;
        w->path[n] = (tw_wire_step){"candidates", 0};
        w->path[n + 1] = (tw_wire_step){NULL, ci};
        w->path[n + 2] = (tw_wire_step){"content", 0};
        w->path[n + 3] = (tw_wire_step){"parts", 0};
        located = tw_wire_cursor_open(&cur, w->buf, w->len, w->path, n + 4);
    }
    for (cJSON *pt = parts->child; st == TW_OK && pt; pt = pt->next) {
        int64_t off = located ? tw_wire_cursor_next(&cur) : w->at;
        st = part(a, pt, off < 0 ? w->at : off);
    }
    return st;
}

/* An error object: "<code> <status>: <message>". */
static const tw_wire_error_shape ERROR_SHAPE = {{"status", NULL}, true, true};

/* One GenerateContentResponse. `error_code` is what an error envelope in
 * its place gives (error_response in a body, stream_error in a stream). */
static tw_status response(gem_acc *a, cJSON *root, gem_where *w, tw_status error_code)
{
    if (!cJSON_IsObject(root))
        return tw_wire_diag(&a->k, true, TW_D_RESPONSE_SHAPE, w->at,
                            "a response is not a JSON object");
    const cJSON *err = tw_json_get(root, "error");
    cJSON *cands = tw_json_get(root, "candidates");
    tw_status st = TW_OK;
    if (err && !cJSON_IsNull(err) && !cands) {
        char msg[300];
        tw_wire_error_text(err, &ERROR_SHAPE, msg, sizeof msg);
        int64_t off = w->at;
        if (w->buf) {
            w->path[w->npath] = (tw_wire_step){"error", 0};
            off = tw_wire_locate(w->buf, w->len, w->path, w->npath + 1);
        }
        return tw_wire_diag(&a->k, true, error_code, off < 0 ? w->at : off, msg);
    }
    const char *block = tw_json_get_str(tw_json_get(root, "promptFeedback"), "blockReason");
    if (block && !a->blocked) {
        a->blocked = true;
        char msg[120];
        snprintf(msg, sizeof msg, "the prompt was blocked: %.80s", block);
        if ((st = tw_wire_diag(&a->k, true, TW_D_REFUSAL, w->at, msg)) != TW_OK)
            return st;
    }
    if (!cands || cJSON_IsNull(cands))
        return TW_OK;
    if (!cJSON_IsArray(cands))
        return tw_wire_diag(&a->k, true, TW_D_RESPONSE_SHAPE, w->at, "candidates is not an array");
    size_t ci = 0;
    for (cJSON *c = cands->child; st == TW_OK && c; c = c->next, ci++) {
        /* an absent index is the position; a present one must be exactly 0
         * (0.5 is not the first candidate) */
        const cJSON *ix = tw_json_get(c, "index");
        int64_t index = (int64_t)ci;
        if (ix && !tw_json_exact_int(ix, 0, INT64_MAX, &index))
            index = -1;
        if (index == 0 && cJSON_IsObject(c))
            st = candidate(a, c, w, ci);
        else
            st = warn_once(a, &a->warned_candidates, w->at,
                           "only the candidate of index 0 is decoded; the others were dropped");
    }
    return st;
}

/* The end of the message: a call still open is refused, the finish reason set. */
static tw_status acc_end(gem_acc *a)
{
    tw_status st = TW_OK;
    if (a->open) {
        a->ev_off = a->call_off; /* no event caused it: the call's start */
        call_refuse(a, TW_D_TOOL_CALL_UNTERMINATED,
                    "the input ended inside a streamed call (willContinue)");
        st = call_close(a);
    }
    tw_result *r = a->k.res;
    const char *fr = tw_gemini_finish_reason(a->finish, r->msg.ncalls > 0);
    if (!fr && a->blocked)
        fr = "content_filter";
    return tw_wire_set_finish(r, st, fr);
}

/* ===================== the response body ===================== */

static tw_status gem_body(tw_wire_sink *k, const char *buf, size_t len)
{
    cJSON *root = NULL;
    tw_error e;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint(buf, len, k->L->max_depth + TW_WIRE_ENVELOPE_DEPTH + 1, &root,
                                      &e, &lint);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_wire_diag(k, true, TW_D_RESPONSE_JSON, (int64_t)e.offset, e.message);
    gem_acc a;
    acc_init(&a, *k);
    gem_where w = {buf, len, {{NULL, 0}}, 0, 0};
    st = tw_wire_lint_diags(k, &lint, 0, true, NULL);
    if (st == TW_OK && cJSON_IsArray(root)) { /* streamGenerateContent without alt=sse */
        tw_wire_cursor cur;
        bool located = tw_wire_cursor_open(&cur, buf, len, NULL, 0);
        size_t i = 0;
        for (cJSON *r = root->child; st == TW_OK && r; r = r->next, i++) {
            int64_t off = located ? tw_wire_cursor_next(&cur) : 0;
            w.path[0] = (tw_wire_step){NULL, i};
            w.npath = 1;
            w.at = off < 0 ? 0 : off;
            st = response(&a, r, &w, TW_D_ERROR_RESPONSE);
        }
    } else if (st == TW_OK) {
        if (cJSON_IsObject(root) && !tw_json_get(root, "candidates") &&
            !tw_json_get(root, "error") && !tw_json_get(root, "promptFeedback"))
            st = tw_wire_diag(k, true, TW_D_RESPONSE_SHAPE, 0, "the response has no candidates");
        if (st == TW_OK)
            st = response(&a, root, &w, TW_D_ERROR_RESPONSE);
    }
    if (st == TW_OK)
        st = acc_end(&a);
    acc_release(&a);
    cJSON_Delete(root);
    return st;
}

TW_BODY_FORMAT(body, tw_gemini_response_decode, gem_body)

/* ===================== the event stream ===================== */

/* The stream decoder's state, private to the module. */
typedef struct tw_gemini_stream {
    tw_wire_stream w; /* first: the state every event stream keeps */
    gem_acc acc;
} tw_gemini_stream;

static tw_status on_event(tw_wire_stream *w, const tw_wire_event *e)
{
    tw_gemini_stream *d = (tw_gemini_stream *)w;
    if (tw_wire_event_is(e, "error") && !cJSON_IsObject(e->j))
        return tw_wire_stream_raw_error(w, e);
    if (e->parsed != TW_OK || !cJSON_IsObject(e->j))
        return tw_wire_stream_not_object(w, e);
    gem_where wh = {NULL, 0, {{NULL, 0}}, 0, e->off};
    d->acc.copy_args = w->arena.live;
    return response(&d->acc, e->j, &wh, TW_D_STREAM_ERROR);
}

static void gs_init(tw_wire_stream *w)
{
    acc_init(&((tw_gemini_stream *)w)->acc, tw_wire_stream_sink(w));
}

static bool gs_ended(const tw_wire_stream *w)
{
    const gem_acc *a = &((const tw_gemini_stream *)w)->acc;
    return a->finish_seen || a->blocked;
}

static tw_status gs_end(tw_wire_stream *w)
{
    return acc_end(&((tw_gemini_stream *)w)->acc);
}

static void gs_release(tw_wire_stream *w)
{
    acc_release(&((tw_gemini_stream *)w)->acc);
}

static const tw_wire_stream_kind GEM_STREAM = {
    .size = sizeof(tw_gemini_stream),
    .depth = TW_WIRE_ENVELOPE_DEPTH + 1,
    .what = "event data",
    .unended = "stream ended without a finishReason",
    .read_after_end = true,
    .init = gs_init,
    .event = on_event,
    .ended = gs_ended,
    .end = gs_end,
    .release = gs_release,
};

TW_WIRE_STREAM_FORMAT(tw_gemini_stream, GEM_STREAM)

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_gemini = {"gemini",
                                        "Gemini generateContent response body (or error envelope)",
                                        tw_gemini_response_decode,
                                        tw_body_new,
                                        tw_body_feed,
                                        body_finish,
                                        tw_body_reset,
                                        tw_body_free,
                                        tw_format_recycle_free};
const tw_format_ops tw_format_gemini_stream = {
    "gemini-stream",         "Gemini streamGenerateContent?alt=sse event stream",
    tw_gemini_stream_decode, tw_gemini_stream_open,
    tw_wire_stream_feed,     tw_wire_stream_finish,
    tw_wire_stream_reset,    tw_wire_stream_free,
    tw_format_recycle_free};
