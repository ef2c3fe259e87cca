/* The neutral model: lifecycle, copies, call ids and tool lookup (neutral JSON
 * is neutral_json.c). */
#include "alloc.h"
#include "toolwire/neutral.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "utf8.h"
#include "tw_macros.h"
#include "work.h"

/* ===================== lifecycle ===================== */

void tw_call_free(tw_call *c)
{
    /* the argument text (one large block) first: freed after the tree, it
     * would make the allocator fold every node just freed back into the
     * heap, and the next decode's nodes would be carved out again */
    tw_free(c->raw_args);
    tw_free(c->id);
    tw_free(c->name);
    cJSON_Delete(c->arguments);
    memset(c, 0, sizeof *c);
}

void tw_message_free(tw_message *m)
{
    tw_buf_free(&m->content);
    tw_buf_free(&m->thinking);
    tw_free(m->thinking_signature);
    for (size_t i = 0; i < m->ncalls; i++)
        tw_call_free(&m->calls[i]);
    tw_free(m->calls);
    tw_free(m->tool_call_id);
    tw_free(m->name);
    cJSON_Delete(m->redacted_thinking);
    memset(m, 0, sizeof *m);
}

void tw_tool_free(tw_tool *t)
{
    tw_free(t->name);
    tw_free(t->description);
    cJSON_Delete(t->parameters);
    memset(t, 0, sizeof *t);
}

void tw_tools_free(tw_tool *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tw_tool_free(&t[i]);
    tw_free(t);
}

void tw_request_free(tw_request *r)
{
    tw_free(r->model);
    for (size_t i = 0; i < r->nmessages; i++)
        tw_message_free(&r->messages[i]);
    tw_free(r->messages);
    tw_tools_free(r->tools, r->ntools);
    tw_free(r->choice_name);
    cJSON_Delete(r->options);
    tw_diag_list_free(&r->warnings);
    memset(r, 0, sizeof *r);
    r->parallel_tool_calls = -1;
}

void tw_result_init(tw_result *r, const tw_limits *limits)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    memset(r, 0, sizeof *r);
    r->msg.role = TW_ROLE_ASSISTANT;
    r->errors.max = l.max_diags;
    r->warnings.max = l.max_diags;
}

static void id_index_free(struct tw_id_index *x);

void tw_result_free(tw_result *r)
{
    id_index_free(r->ids);
    tw_message_free(&r->msg);
    tw_free(r->finish_reason);
    tw_diag_list_free(&r->errors);
    tw_diag_list_free(&r->warnings);
    memset(r, 0, sizeof *r);
}

void tw_result_clear(tw_result *r, const tw_limits *limits)
{
    tw_buf content = r->msg.content, thinking = r->msg.thinking;
    memset(&r->msg.content, 0, sizeof r->msg.content);
    memset(&r->msg.thinking, 0, sizeof r->msg.thinking);
    tw_result_free(r);
    tw_result_init(r, limits);
    r->msg.content.data = content.data;
    r->msg.content.cap = content.cap;
    r->msg.thinking.data = thinking.data;
    r->msg.thinking.cap = thinking.cap;
    if (r->msg.content.data)
        r->msg.content.data[0] = '\0';
    if (r->msg.thinking.data)
        r->msg.thinking.data[0] = '\0';
}

tw_status tw_message_add_call(tw_message *m, tw_call *c)
{
    if (m->ncalls == m->cap_calls) {
        size_t ncap = m->cap_calls ? m->cap_calls * 2 : 4;
        tw_call *n = tw_realloc(m->calls, ncap * sizeof *n);
        if (!n)
            return TW_ERR_NOMEM;
        m->calls = n;
        m->cap_calls = ncap;
    }
    m->calls[m->ncalls++] = *c;
    memset(c, 0, sizeof *c);
    return TW_OK;
}

tw_status tw_call_copy(tw_call *dst, const tw_call *src)
{
    memset(dst, 0, sizeof *dst);
    dst->id = src->id ? tw_strdup(src->id) : NULL;
    dst->name = src->name ? tw_strdup(src->name) : NULL;
    dst->arguments = src->arguments ? cJSON_Duplicate(src->arguments, 1) : NULL;
    if (src->raw_args) {
        dst->raw_args = tw_strndup(src->raw_args, src->raw_args_len);
        dst->raw_args_len = src->raw_args_len;
    }
    dst->offset = src->offset;
    if ((src->id && !dst->id) || (src->name && !dst->name) || (src->arguments && !dst->arguments) ||
        (src->raw_args && !dst->raw_args)) {
        tw_call_free(dst);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}

static tw_status buf_copy(tw_buf *dst, const tw_buf *src)
{
    memset(dst, 0, sizeof *dst);
    dst->max = src->max;
    return src->len || src->data ? tw_buf_append(dst, src->data ? src->data : "", src->len) : TW_OK;
}

tw_status tw_message_copy(tw_message *dst, const tw_message *src)
{
    memset(dst, 0, sizeof *dst);
    dst->role = src->role;
    dst->is_error = src->is_error;
    dst->has_redacted_thinking = src->has_redacted_thinking;
    tw_status st = buf_copy(&dst->content, &src->content);
    if (st == TW_OK)
        st = buf_copy(&dst->thinking, &src->thinking);
    if (st == TW_OK && src->thinking_signature &&
        !(dst->thinking_signature = tw_strdup(src->thinking_signature)))
        st = TW_ERR_NOMEM;
    if (st == TW_OK && src->tool_call_id && !(dst->tool_call_id = tw_strdup(src->tool_call_id)))
        st = TW_ERR_NOMEM;
    if (st == TW_OK && src->name && !(dst->name = tw_strdup(src->name)))
        st = TW_ERR_NOMEM;
    if (st == TW_OK && src->redacted_thinking &&
        !(dst->redacted_thinking = cJSON_Duplicate(src->redacted_thinking, 1)))
        st = TW_ERR_NOMEM;
    for (size_t i = 0; st == TW_OK && i < src->ncalls; i++) {
        tw_call c;
        st = tw_call_copy(&c, &src->calls[i]);
        if (st == TW_OK) {
            st = tw_message_add_call(dst, &c);
            if (st != TW_OK)
                tw_call_free(&c);
        }
    }
    if (st != TW_OK)
        tw_message_free(dst);
    return st;
}

tw_status tw_tool_copy(tw_tool *dst, const tw_tool *src)
{
    memset(dst, 0, sizeof *dst);
    dst->name = src->name ? tw_strdup(src->name) : NULL;
    dst->description = src->description ? tw_strdup(src->description) : NULL;
    dst->parameters = src->parameters ? cJSON_Duplicate(src->parameters, 1) : NULL;
    if ((src->name && !dst->name) || (src->description && !dst->description) ||
        (src->parameters && !dst->parameters)) {
        tw_tool_free(dst);
        return TW_ERR_NOMEM;
    }
    return TW_OK;
}

static const char *const role_names[] = {"system", "user", "assistant", "tool"};

const char *tw_role_name(tw_role r)
{
    return (unsigned)r < 4 ? role_names[r] : "user";
}

bool tw_role_from_name(const char *s, tw_role *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, role_names[i]) == 0) {
            *out = (tw_role)i;
            return true;
        }
    if (strcmp(s, "developer") == 0) {
        *out = TW_ROLE_SYSTEM;
        return true;
    }
    return false;
}

/* ===================== helpers ===================== */

const tw_tool *tw_tools_find(const tw_tool *tools, size_t n, const char *name)
{
    TW_WORK(n);
    for (size_t i = 0; i < n; i++)
        if (tools[i].name && strcmp(tools[i].name, name) == 0)
            return &tools[i];
    return NULL;
}

static bool id_taken(const tw_message *m, const char *id)
{
    TW_WORK(m->ncalls);
    for (size_t i = 0; i < m->ncalls; i++)
        if (m->calls[i].id && strcmp(m->calls[i].id, id) == 0)
            return true;
    return false;
}

char *tw_unique_call_id(const tw_message *m, const char *id, bool *rewritten)
{
    *rewritten = false;
    if (!id_taken(m, id))
        return tw_strdup(id);
    size_t n = strlen(id);
    char *cand = tw_malloc(n + 24);
    if (!cand)
        return NULL;
    for (unsigned long k = 2;; k++) {
        snprintf(cand, n + 24, "%s__%lu", id, k);
        if (!id_taken(m, cand))
            break;
    }
    *rewritten = true;
    return cand;
}

/*
 * The index behind tw_result_unique_call_id: an open-addressing set of the
 * positions of msg.calls (ids compared through the calls, never held), and
 * per rewritten id the lowest "__N" suffix not yet seen taken. Both only
 * grow with the calls, so every probe and every suffix tried is paid once.
 */
typedef struct tw_named_tool {
    const char *name; /* the tool's (not owned) */
    size_t pos;
} tw_named_tool;

typedef struct id_memo {
    char *base;
    unsigned long next; /* every suffix below it was taken */
} id_memo;

struct tw_id_index {
    size_t *slot;  /* 1 + call position; 0 empty */
    size_t nslot;  /* a power of two, at least twice synced */
    size_t synced; /* msg.calls[0, synced) are in the set */
    id_memo *memo;
    size_t nmemo, cap_memo;
    size_t *mslot; /* 1 + memo position; 0 empty */
    size_t nmslot;
    /* tw_result_find_tool: positions of the named tools sorted by (name, position) */
    const tw_tool *tools;
    size_t ntools;
    tw_named_tool *by_name;
    size_t nnamed;
};

static void id_index_free(struct tw_id_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nmemo; i++)
        tw_free(x->memo[i].base);
    tw_free(x->memo);
    tw_free(x->mslot);
    tw_free(x->slot);
    tw_free(x->by_name);
    tw_free(x);
}

static size_t id_hash(const char *s)
{
    return (size_t)tw_hash_str(s);
}

/* The slot holding `id` (a call's), or the empty slot where it would go. */
static size_t *id_slot(const struct tw_id_index *x, const tw_message *m, const char *id)
{
    size_t mask = x->nslot - 1, h = id_hash(id) & mask;
    for (;; h = (h + 1) & mask) {
        TW_WORK(1);
        size_t v = x->slot[h];
        if (!v || (m->calls[v - 1].id && strcmp(m->calls[v - 1].id, id) == 0))
            return &x->slot[h];
    }
}

/* Add msg.calls[synced, ncalls) to the set (from scratch when calls went away). */
static tw_status id_sync(struct tw_id_index *x, const tw_message *m)
{
    if (m->ncalls < x->synced) {
        memset(x->slot, 0, x->nslot * sizeof *x->slot);
        x->synced = 0;
    }
    if (2 * (m->ncalls + 1) > x->nslot) {
        size_t ns = x->nslot ? x->nslot : 16;
        while (2 * (m->ncalls + 1) > ns)
            ns *= 2;
        size_t *t = tw_calloc(ns, sizeof *t);
        if (!t)
            return TW_ERR_NOMEM;
        tw_free(x->slot);
        x->slot = t;
        x->nslot = ns;
        x->synced = 0;
    }
    for (; x->synced < m->ncalls; x->synced++) {
        const char *id = m->calls[x->synced].id;
        if (!id)
            continue;
        size_t *s = id_slot(x, m, id);
        if (!*s)
            *s = x->synced + 1;
    }
    return TW_OK;
}

/* The memo of a rewritten base id, made on first use (hashed like the ids). */
static id_memo *id_memo_of(struct tw_id_index *x, const char *base)
{
    if (2 * (x->nmemo + 1) > x->nmslot) {
        size_t ns = x->nmslot ? x->nmslot * 2 : 16;
        size_t *t = tw_calloc(ns, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < x->nmemo; i++) {
            size_t h = id_hash(x->memo[i].base) & (ns - 1);
            while (t[h])
                h = (h + 1) & (ns - 1);
            t[h] = i + 1;
        }
        tw_free(x->mslot);
        x->mslot = t;
        x->nmslot = ns;
    }
    size_t mask = x->nmslot - 1, h = id_hash(base) & mask;
    for (; x->mslot[h]; h = (h + 1) & mask) {
        TW_WORK(1);
        if (strcmp(x->memo[x->mslot[h] - 1].base, base) == 0)
            return &x->memo[x->mslot[h] - 1];
    }
    if (x->nmemo == x->cap_memo) {
        size_t nc = x->cap_memo ? x->cap_memo * 2 : 4;
        id_memo *nm = tw_realloc(x->memo, nc * sizeof *nm);
        if (!nm)
            return NULL;
        x->memo = nm;
        x->cap_memo = nc;
    }
    char *b = tw_strdup(base);
    if (!b)
        return NULL;
    x->memo[x->nmemo] = (id_memo){b, 2};
    x->mslot[h] = ++x->nmemo;
    return &x->memo[x->nmemo - 1];
}

char *tw_result_unique_call_id(tw_result *r, const char *raw, bool *rewritten)
{
    *rewritten = false;
    if (!r->ids && !(r->ids = tw_calloc(1, sizeof *r->ids)))
        return NULL;
    struct tw_id_index *x = r->ids;
    if (id_sync(x, &r->msg) != TW_OK)
        return NULL;
    /* ids are kept and compared as every writer prints them: two ids that
     * differ only in invalid UTF-8 bytes are the same id once written (the
     * decoders report the invalid bytes as json_not_rfc8259) */
    bool changed;
    char *id = tw_utf8_as_written(raw, strlen(raw), &changed);
    if (!id)
        return NULL;
    if (!*id_slot(x, &r->msg, id))
        return id;
    id_memo *mo = id_memo_of(x, id);
    size_t n = strlen(id);
    char *cand = mo ? tw_malloc(n + 24) : NULL;
    if (!cand) {
        tw_free(id);
        return NULL;
    }
    for (;; mo->next++) {
        snprintf(cand, n + 24, "%s__%lu", id, mo->next);
        if (!*id_slot(x, &r->msg, cand))
            break;
    }
    tw_free(id);
    *rewritten = true;
    return cand;
}

static int tool_cmp(const void *a, const void *b)
{
    const tw_named_tool *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

const tw_tool *tw_result_find_tool(tw_result *r, const tw_tool *tools, size_t n, const char *name)
{
    if (n <= 8 || !name)
        return name ? tw_tools_find(tools, n, name) : NULL;
    if (!r->ids && !(r->ids = tw_calloc(1, sizeof *r->ids)))
        return tw_tools_find(tools, n, name);
    struct tw_id_index *x = r->ids;
    if (x->tools != tools || x->ntools != n || !x->by_name) {
        tw_named_tool *v = tw_malloc(n * sizeof *v);
        if (!v)
            return tw_tools_find(tools, n, name);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (tools[i].name)
                v[k++] = (tw_named_tool){tools[i].name, i};
        qsort(v, k, sizeof *v, tool_cmp);
        TW_WORK(n);
        tw_free(x->by_name);
        x->by_name = v;
        x->nnamed = k;
        x->tools = tools;
        x->ntools = n;
    }
    /* the first position with this name: the lowest bound */
    size_t lo = 0, hi = x->nnamed;
    while (lo < hi) {
        TW_WORK(1);
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(x->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->nnamed && strcmp(x->by_name[lo].name, name) == 0 ? &tools[x->by_name[lo].pos]
                                                                    : NULL;
}

const char *tw_text_finish_reason(size_t ncalls, tw_finish finish)
{
    if (ncalls)
        return "tool_calls";
    return finish == TW_FINISH_LENGTH ? "length" : "stop";
}
