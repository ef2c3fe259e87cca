/* Secret redaction for recorded traffic (redact.h). */
#include "redact_int.h"

#include <stdatomic.h>

#include "toolwire/registry.h"

/*
 * The one table of credential names: every writer (import, record, serve's
 * log and its secret learning, the fuzz invariants) asks tw_redact_name,
 * never a list of its own. Names are compared as normalised by norm_name
 * (lower case, '-' ' ' '.' as '_', "secretKey" as "secret_key"), whole
 * (EXACT), as the end after a '_' (SUFFIX, "db_password") or anywhere in
 * the name with its separators taken out (PART, headers only:
 * "x-custom-token", "X-PassWord"). An EXCEPT row keeps a header whose name
 * holds it ("x-ratelimit-remaining-tokens" is a counter).
 */
enum { NR_EXACT, NR_SUFFIX, NR_PART, NR_EXCEPT };
#define NR_H TW_NAME_HEADER
#define NR_P TW_NAME_PARAM
#define NR_FP (TW_NAME_FIELD | TW_NAME_PARAM)
#define NR_ALL (TW_NAME_HEADER | TW_NAME_FIELD | TW_NAME_PARAM)
static const struct name_rule {
    const char *name;
    unsigned char how;
    unsigned char where;
} name_rules[] = {
    /* header names dropped whole, and their field / parameter spellings */
    {"authorization", NR_EXACT, NR_ALL},
    {"proxy_authorization", NR_EXACT, NR_H},
    {"api_key", NR_EXACT, NR_ALL},
    {"x_api_key", NR_EXACT, NR_ALL},
    {"x_goog_api_key", NR_EXACT, NR_H},
    {"cookie", NR_EXACT, NR_ALL},
    {"set_cookie", NR_EXACT, NR_H},
    {"openai_organization", NR_EXACT, NR_H},
    {"openai_project", NR_EXACT, NR_H},
    {"anthropic_organization_id", NR_EXACT, NR_H},
    /* any header name holding one of these, rate limits excepted */
    {"ratelimit", NR_EXCEPT, NR_H},
    {"organization", NR_PART, NR_H},
    {"project", NR_PART, NR_H},
    {"token", NR_PART, NR_H},
    {"secret", NR_PART, NR_H},
    {"password", NR_PART, NR_H},
    {"passwd", NR_PART, NR_H},
    {"session", NR_PART, NR_H},
    {"auth", NR_PART, NR_H},
    {"key", NR_PART, NR_H},
    {"cookie", NR_PART, NR_H},
    /* JSON fields and query parameters, bare */
    {"key", NR_EXACT, NR_P},
    {"token", NR_EXACT, NR_FP},
    {"secret", NR_EXACT, NR_FP},
    {"password", NR_EXACT, NR_FP},
    {"passwd", NR_EXACT, NR_FP},
    {"pwd", NR_EXACT, NR_FP},
    {"apikey", NR_EXACT, NR_FP},
    {"auth", NR_EXACT, NR_FP},
    {"credential", NR_EXACT, NR_FP},
    {"credentials", NR_EXACT, NR_FP},
    {"private_key", NR_EXACT, NR_FP},
    {"secret_key", NR_EXACT, NR_FP},
    {"access_key", NR_EXACT, NR_FP},
    {"client_secret", NR_EXACT, NR_FP},
    {"refresh_token", NR_EXACT, NR_FP},
    {"access_token", NR_EXACT, NR_FP},
    /* ... and as the end of a longer name */
    {"_token", NR_SUFFIX, NR_FP},
    {"_secret", NR_SUFFIX, NR_FP},
    {"_password", NR_SUFFIX, NR_FP},
    {"_passwd", NR_SUFFIX, NR_FP},
    {"_pwd", NR_SUFFIX, NR_FP},
    {"_api_key", NR_SUFFIX, NR_FP},
    {"_apikey", NR_SUFFIX, NR_FP},
    {"_private_key", NR_SUFFIX, NR_FP},
    {"_secret_key", NR_SUFFIX, NR_FP},
    {"_access_key", NR_SUFFIX, NR_FP},
};

/* Set-Cookie attributes: not secret values. */
static const char *const cookie_attrs[] = {"path",     "expires",  "max-age", "domain",
                                           "samesite", "priority", NULL};

static tw_status push(char ***arr, size_t *n, const char *s, size_t len)
{
    char **na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na)
        return TW_ERR_NOMEM;
    *arr = na;
    na[*n] = tw_strndup(s, len);
    if (!na[*n])
        return TW_ERR_NOMEM;
    (*n)++;
    return TW_OK;
}

tw_status tw_redactor_add_name(tw_redactor *r, const char *name)
{
    return push(&r->names, &r->nnames, name, strlen(name));
}

tw_status tw_redactor_add_field(tw_redactor *r, const char *name)
{
    return push(&r->fields, &r->nfields, name, strlen(name));
}

static bool have(char *const *vals, size_t nv, const char *s, size_t n)
{
    for (size_t i = 0; i < nv; i++)
        if (strlen(vals[i]) == n && memcmp(vals[i], s, n) == 0)
            return true;
    return false;
}

/* The value, trimmed, and for "Bearer X" / "Basic X" also X: each kept when
 * it has 6 bytes or more and no NUL. */
static tw_status add_value_to(char ***vals, size_t *nv, const char *p, size_t n)
{
    tw_trim(&p, &n);
    if (n >= 6 && !memchr(p, '\0', n) && !have(*vals, *nv, p, n)) {
        tw_status st = push(vals, nv, p, n);
        if (st != TW_OK)
            return st;
    }
    const char *sp = memchr(p, ' ', n);
    if (sp) {
        const char *t = sp + 1;
        size_t tn = n - (size_t)(t - p);
        tw_trim(&t, &tn);
        if (tn >= 6 && !memchr(t, '\0', tn) && !have(*vals, *nv, t, tn))
            return push(vals, nv, t, tn);
    }
    return TW_OK;
}

static tw_status add_valuen(tw_redactor *r, const char *p, size_t n)
{
    tw_status st = add_value_to(&r->values, &r->nvalues, p, n);
    if (st == TW_OK && r->publish) {
        char *c = tw_strndup(p, n);
        st = c ? tw_secret_add(c) : TW_ERR_NOMEM;
        free(c);
    }
    return st;
}

tw_status tw_redactor_add_value(tw_redactor *r, const char *value)
{
    return add_valuen(r, value, strlen(value));
}

void tw_redactor_free(tw_redactor *r)
{
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    for (size_t i = 0; i < r->nfields; i++)
        free(r->fields[i]);
    for (size_t i = 0; i < r->nvalues; i++)
        free(r->values[i]);
    free(r->names);
    free(r->fields);
    free(r->values);
    memset(r, 0, sizeof *r);
}

static bool name_matches(const tw_redactor *r, const char *name, size_t n, unsigned where);

/* The answers for header names without a redactor (the same for every
 * call) of the thread's recent names: a slot per hash of the name, names up
 * to HDR_MEMO_NAME bytes (a server sees the same few names on every request). */
#define HDR_MEMO_SLOTS 16
#define HDR_MEMO_NAME 40
static _Thread_local struct {
    char name[HDR_MEMO_NAME];
    bool dropped;
} hdr_memo[HDR_MEMO_SLOTS];

bool tw_redact_header_dropped(const tw_redactor *r, const char *name)
{
    if (!name)
        return false;
    if (r)
        return name_matches(r, name, strlen(name), TW_NAME_HEADER);
    size_t n = strnlen(name, HDR_MEMO_NAME);
    if (n == 0 || n >= HDR_MEMO_NAME)
        return name_matches(NULL, name, strlen(name), TW_NAME_HEADER);
    size_t h = (n * 31 + (unsigned char)name[0] * 7 + (unsigned char)name[n - 1]) % HDR_MEMO_SLOTS;
    if (memcmp(hdr_memo[h].name, name, n + 1) == 0)
        return hdr_memo[h].dropped;
    bool d = name_matches(NULL, name, n, TW_NAME_HEADER);
    memcpy(hdr_memo[h].name, name, n + 1);
    hdr_memo[h].dropped = d;
    return d;
}

/* Lower case, '-' ' ' '.' as '_', "accessToken" as "access_token" (out:
 * 2 n + 1 bytes or more). */
static void norm_name(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z') {
            if (i > 0 && o > 0 && out[o - 1] != '_' &&
                ((s[i - 1] >= 'a' && s[i - 1] <= 'z') || (s[i - 1] >= '0' && s[i - 1] <= '9')))
                out[o++] = '_';
            out[o++] = (char)(c - 'A' + 'a');
        } else if (c == '-' || c == ' ' || c == '.') {
            out[o++] = '_';
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

/* The normalised name without its '_': where PART rows are looked for. */
static void squash(const char *k, char *out)
{
    size_t o = 0;
    for (; *k; k++)
        if (*k != '_')
            out[o++] = *k;
    out[o] = '\0';
}

static bool name_matches(const tw_redactor *r, const char *name, size_t n, unsigned where)
{
    if (r && (where & TW_NAME_HEADER))
        for (size_t i = 0; i < r->nnames; i++)
            if (strlen(r->names[i]) == n && strncasecmp(r->names[i], name, n) == 0)
                return true;
    if (r && (where & (TW_NAME_FIELD | TW_NAME_PARAM)))
        for (size_t i = 0; i < r->nfields; i++)
            if (strlen(r->fields[i]) == n && strncasecmp(r->fields[i], name, n) == 0)
                return true;
    char small[256];
    char *k = 4 * n + 2 <= sizeof small ? small : malloc(4 * n + 2);
    if (!k)
        return true; /* cannot judge the name: keep its value out */
    char *sq = k + 2 * n + 1;
    norm_name(name, n, k);
    squash(k, sq);
    size_t kl = strlen(k);
    bool hit = false, except = false;
    for (size_t i = 0; i < sizeof name_rules / sizeof name_rules[0]; i++) {
        const struct name_rule *nr = &name_rules[i];
        if (!(nr->where & where))
            continue;
        size_t pl = strlen(nr->name);
        switch (nr->how) {
        case NR_EXACT: hit = hit || (kl == pl && memcmp(k, nr->name, pl) == 0); break;
        case NR_SUFFIX: hit = hit || (kl > pl && memcmp(k + kl - pl, nr->name, pl) == 0); break;
        case NR_PART: hit = hit || strstr(sq, nr->name) != NULL; break;
        default: except = except || strstr(sq, nr->name) != NULL; break;
        }
    }
    /* an EXCEPT row outweighs the PART rows, not an exact name */
    if (except) {
        hit = false;
        for (size_t i = 0; i < sizeof name_rules / sizeof name_rules[0] && !hit; i++)
            hit = (name_rules[i].where & where) && name_rules[i].how == NR_EXACT &&
                  strcmp(k, name_rules[i].name) == 0;
    }
    if (k != small)
        free(k);
    return hit;
}

bool tw_redact_name(const tw_redactor *r, const char *name, size_t n, unsigned where)
{
    return name && name_matches(r, name, n, where);
}

bool tw_redact_field_secret(const tw_redactor *r, const char *name)
{
    return name && name_matches(r, name, strlen(name), TW_NAME_FIELD);
}

bool tw_redact_param_secret(const tw_redactor *r, const char *name)
{
    return name && name_matches(r, name, strlen(name), TW_NAME_PARAM);
}

/* A query parameter named like a credential ("key" too). */
static bool param_secret(const tw_redactor *r, const char *name, size_t n)
{
    return name_matches(r, name, n, TW_NAME_PARAM);
}

/* ---- scrubbing text ---- */

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_token_char(unsigned char c)
{
    return is_alnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c == '/' ||
           c == '=';
}

/* Length of a credential-looking run starting at s[i], 0 when none. */
static size_t key_like(const char *s, size_t n, size_t i)
{
    /* sk-…, sk-proj-…, sk-ant-…, rk-… style keys: a prefix, then a long run */
    static const char *const prefixes[] = {"sk-", "rk-", "sess-", "gsk_", "xai-", NULL};
    if (i > 0 && (is_alnum((unsigned char)s[i - 1]) || s[i - 1] == '-' || s[i - 1] == '_'))
        return 0;
    for (const char *const *p = prefixes; *p; p++) {
        size_t pl = strlen(*p);
        if (n - i < pl || memcmp(s + i, *p, pl) != 0)
            continue;
        size_t j = i + pl;
        while (j < n && (is_alnum((unsigned char)s[j]) || s[j] == '-' || s[j] == '_'))
            j++;
        if (j - i - pl >= 16)
            return j - i;
    }
    return 0;
}

/* "Bearer " / "Basic " at s[i]: the length of the scheme word plus space. */
static size_t auth_scheme(const char *s, size_t n, size_t i)
{
    static const char *const schemes[] = {"bearer ", "basic ", NULL};
    if (i > 0 && is_alnum((unsigned char)s[i - 1]))
        return 0;
    for (const char *const *p = schemes; *p; p++) {
        size_t pl = strlen(*p);
        if (n - i > pl && strncasecmp(s + i, *p, pl) == 0)
            return pl;
    }
    return 0;
}

/* "?key=" / "&api_key=" at s[i] (a credential parameter name, at most 64
 * bytes): the length up to and including '='. */
static size_t query_param(const tw_redactor *r, const char *s, size_t n, size_t i)
{
    if (s[i] != '?' && s[i] != '&')
        return 0;
    size_t j = i + 1;
    while (j < n && j - i <= 65 && (is_alnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '-'))
        j++;
    if (j >= n || s[j] != '=' || j == i + 1 || j - i > 65)
        return 0;
    return param_secret(r, s + i + 1, j - i - 1) ? j - i + 1 : 0;
}

/* End of a query parameter's value starting at s[j]. */
static size_t param_end(const char *s, size_t n, size_t j)
{
    while (j < n && (is_token_char((unsigned char)s[j]) || s[j] == '%'))
        j++;
    return j;
}

/* One more span in *sp. */
static tw_status push_span(tw_red_span **sp, size_t *nsp, size_t *cap, size_t a, size_t b)
{
    tw_status st = tw_red_room(sp, *nsp, cap, sizeof **sp);
    if (st != TW_OK)
        return st;
    (*sp)[(*nsp)++] = (tw_red_span){a, b};
    return TW_OK;
}

tw_status tw_red_pattern_spans(const tw_redactor *r, const char *s, size_t n, tw_red_span **sp,
                               size_t *nsp, size_t *cap)
{
    tw_status st = TW_OK;
    size_t i = 0;
    while (i < n && st == TW_OK) {
        size_t k = key_like(s, n, i);
        if (k) {
            st = push_span(sp, nsp, cap, i, i + k);
            i += k;
            continue;
        }
        size_t pre = auth_scheme(s, n, i);
        bool query = false;
        if (!pre) {
            pre = query_param(r, s, n, i);
            query = pre != 0;
        }
        if (pre) {
            size_t j = query ? param_end(s, n, i + pre) : i + pre;
            if (!query)
                while (j < n && is_token_char((unsigned char)s[j]))
                    j++;
            if (j - i - pre >= (query ? 1u : 6u)) {
                st = push_span(sp, nsp, cap, i + pre, j);
                i = j;
                continue;
            }
        }
        i++;
    }
    return st;
}

tw_status tw_redact_text(tw_redactor *r, const char *s0, size_t n0, tw_buf *out)
{
    /* first every remembered value, in any encoding, then the shapes of
     * keys and tokens in what is left */
    tw_buf vb = {0};
    size_t cnt = 0;
    tw_red_span *sp = NULL;
    size_t nsp = 0, cap = 0;
    tw_status st = tw_scrub_values(r->values, r->nvalues, s0, n0, &vb, &cnt, NULL);
    r->scrubbed += cnt;
    const char *s = vb.data ? vb.data : "";
    if (st == TW_OK)
        st = tw_red_pattern_spans(r, s, vb.len, &sp, &nsp, &cap);
    size_t at = 0;
    for (size_t i = 0; i < nsp && st == TW_OK; i++) {
        if (sp[i].a > at)
            st = tw_buf_append(out, s + at, sp[i].a - at);
        if (st == TW_OK)
            st = tw_buf_puts(out, TW_REDACTED);
        r->scrubbed++;
        at = sp[i].b;
    }
    if (st == TW_OK && vb.len > at)
        st = tw_buf_append(out, s + at, vb.len - at);
    free(sp);
    tw_buf_free(&vb);
    return st;
}

char *tw_redact_str(tw_redactor *r, const char *s)
{
    tw_buf b = {0};
    if (tw_redact_text(r, s, strlen(s), &b) != TW_OK) {
        tw_buf_free(&b);
        return NULL;
    }
    return tw_buf_take(&b, NULL);
}

/* ---- discovery ---- */

char *tw_pct_decode(const char *s, size_t n, size_t *outn)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < n && (h = tw_red_hexval((unsigned char)s[i + 1])) >= 0 &&
            (l = tw_red_hexval((unsigned char)s[i + 2])) >= 0) {
            d[o++] = (char)(h * 16 + l);
            i += 2;
        } else {
            d[o++] = s[i];
        }
    }
    d[o] = '\0';
    *outn = o;
    return d;
}

/* A query parameter's value, as written and percent-decoded. */
static tw_status add_param_value(tw_redactor *r, const char *v, size_t n)
{
    tw_status st = add_valuen(r, v, n);
    if (st != TW_OK || !memchr(v, '%', n))
        return st;
    size_t o = 0;
    char *d = tw_pct_decode(v, n, &o);
    if (!d)
        return TW_ERR_NOMEM;
    st = add_valuen(r, d, o);
    free(d);
    return st;
}

tw_status tw_redact_discover_text(tw_redactor *r, const char *s, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        size_t k = key_like(s, n, i);
        if (k) {
            st = add_valuen(r, s + i, k);
            i += k - 1;
            continue;
        }
        size_t pre = auth_scheme(s, n, i);
        if (pre) {
            /* a token, not prose ("the bearer instrument"): 12 bytes or
             * more, not only letters */
            size_t j = i + pre;
            bool letters = true;
            while (j < n && is_token_char((unsigned char)s[j])) {
                unsigned char c = (unsigned char)s[j] | 0x20;
                letters = letters && c >= 'a' && c <= 'z';
                j++;
            }
            if (j - i - pre >= 12 && !letters)
                st = add_valuen(r, s + i + pre, j - i - pre);
            continue;
        }
        pre = query_param(r, s, n, i);
        if (pre) {
            size_t j = param_end(s, n, i + pre);
            if (j > i + pre)
                st = add_param_value(r, s + i + pre, j - i - pre);
        }
    }
    return st;
}

tw_status tw_redact_discover_header(tw_redactor *r, const char *name, const char *value)
{
    if (!name || !value)
        return TW_OK;
    tw_status st = TW_OK;
    if (tw_redact_header_dropped(r, name)) {
        if ((st = tw_redactor_add_value(r, value)) != TW_OK)
            return st;
        /* cookie pairs: "a=1; session=xyz" and Set-Cookie's first pair */
        for (const char *p = value; *p && st == TW_OK;) {
            size_t len = strcspn(p, ";");
            const char *eq = memchr(p, '=', len);
            if (eq) {
                const char *nm = p;
                size_t nl = (size_t)(eq - p);
                tw_trim(&nm, &nl);
                bool attr = false;
                for (const char *const *a = cookie_attrs; *a && !attr; a++)
                    attr = strlen(*a) == nl && strncasecmp(*a, nm, nl) == 0;
                if (!attr)
                    st = add_valuen(r, eq + 1, len - (size_t)(eq + 1 - p));
            }
            p += len;
            if (*p == ';')
                p++;
        }
    }
    if (st == TW_OK)
        st = tw_redact_discover_text(r, value, strlen(value));
    return st;
}

static bool looks_container(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return *s == '{' || *s == '[';
}

/* A "token" member beside a "logprob": a model token, not a credential. */
static bool logprob_token(const cJSON *parent, const cJSON *c)
{
    return strcasecmp(c->string, "token") == 0 && parent &&
           cJSON_GetObjectItemCaseSensitive(parent, "logprob") != NULL;
}

static bool secret_member(const tw_redactor *r, const cJSON *parent, const cJSON *c)
{
    return c->string && tw_redact_field_secret(r, c->string) && !logprob_token(parent, c);
}

/* Model text may hold tool calls written as text (Hermes <tool_call>
 * JSON, Qwen3-Coder XML, …): the markup every text dialect opens a call
 * with starts with '<' or '['. */
static bool may_hold_calls(const char *s, size_t n)
{
    return memchr(s, '<', n) || memchr(s, '[', n);
}

static tw_status discover_json(tw_redactor *r, const cJSON *v, size_t depth, size_t max_depth,
                               bool model_text);

/* Every string and number under a credential-named member whose value is
 * an array or an object ({"password": ["…"]}, {"credentials": {…}}): each
 * is a secret. Bounded by the tree's depth, which its loader capped. */
static tw_status discover_leaves(tw_redactor *r, const cJSON *v)
{
    tw_status st = TW_OK;
    for (const cJSON *c = v->child; c && st == TW_OK; c = c->next) {
        if (cJSON_IsString(c) && c->valuestring)
            st = tw_redactor_add_value(r, c->valuestring);
        else if (cJSON_IsNumber(c)) {
            char num[64];
            snprintf(num, sizeof num, "%.17g", c->valuedouble);
            st = tw_redactor_add_value(r, num);
        } else if (c->child)
            st = discover_leaves(r, c);
    }
    return st;
}

static tw_status discover_model_text(tw_redactor *r, const char *s, size_t n, size_t depth,
                                     size_t max_depth, bool in_reasoning)
{
    if (!n || depth >= max_depth || !may_hold_calls(s, n))
        return TW_OK;
    size_t nm = 0;
    const tw_module *m = tw_modules(&nm);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_depth = max_depth - depth;
    tw_status st = TW_OK;
    for (size_t i = 0; i < nm && st == TW_OK; i++) {
        if (m[i].kind != TW_MODULE_DECODER || m[i].family != TW_FAMILY_TEXT || !m[i].decoder)
            continue;
        tw_result res;
        tw_status ds = m[i].decoder->decode(s, n, &o, &res);
        if (ds == TW_ERR_NOMEM)
            return ds;
        if (ds != TW_OK)
            continue;
        for (size_t k = 0; k < res.msg.ncalls && st == TW_OK; k++)
            st = discover_json(r, res.msg.calls[k].arguments, depth + 1, max_depth, false);
        /* a call inside the reasoning (<think><tool_call>…</tool_call></think>)
         * is no call for the decoder, but its credentials are credentials */
        if (st == TW_OK && res.msg.thinking.len && !in_reasoning)
            st = discover_model_text(
                r, res.msg.thinking.data, res.msg.thinking.len, depth + 1, max_depth,
                true); /* one level: a reasoning's reasoning is not read again */
        tw_result_free(&res);
    }
    return st;
}

tw_status tw_red_discover_model_text(tw_redactor *r, const char *s, size_t n, size_t max_depth)
{
    return discover_model_text(r, s, n, 0, max_depth ? max_depth : 64, false);
}

/* With model_text, strings that may hold calls written as text are read by
 * the text decoders; the arguments of a call found so are read without (a
 * call inside a call's arguments is not looked for: each decoder would find
 * it again, and the work would multiply with the nesting). */
static tw_status discover_json(tw_redactor *r, const cJSON *v, size_t depth, size_t max_depth,
                               bool model_text)
{
    if (!v || depth > max_depth)
        return TW_OK;
    if (cJSON_IsString(v) && v->valuestring) {
        const char *s = v->valuestring;
        tw_status st = tw_redact_discover_text(r, s, strlen(s));
        if (st == TW_OK && model_text)
            st = discover_model_text(r, s, strlen(s), depth, max_depth, false);
        if (st == TW_OK && looks_container(s) && depth < max_depth) {
            cJSON *inner = NULL;
            if (tw_json_parse(s, strlen(s), max_depth - depth, &inner, NULL) == TW_OK && inner)
                st = discover_json(r, inner, depth + 1, max_depth, model_text);
            cJSON_Delete(inner);
        }
        return st;
    }
    for (const cJSON *c = v->child; c; c = c->next) {
        tw_status st = TW_OK;
        if (secret_member(r, v, c) && cJSON_IsString(c) && c->valuestring)
            st = tw_redactor_add_value(r, c->valuestring);
        else if (secret_member(r, v, c) && cJSON_IsNumber(c)) {
            char num[64];
            snprintf(num, sizeof num, "%.17g", c->valuedouble);
            st = tw_redactor_add_value(r, num);
        } else if (secret_member(r, v, c) && (cJSON_IsArray(c) || cJSON_IsObject(c)))
            st = discover_leaves(r, c);
        if (st == TW_OK)
            st = discover_json(r, c, depth + 1, max_depth, model_text);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_red_discover_json(tw_redactor *r, const cJSON *v, size_t depth, size_t max_depth)
{
    return discover_json(r, v, depth, max_depth, true);
}

tw_status tw_redact_discover_json(tw_redactor *r, const cJSON *v, size_t max_depth)
{
    return tw_red_discover_json(r, v, 0, max_depth ? max_depth : 64);
}

/* ---- scrubbing JSON ---- */

tw_status tw_red_swap_string(cJSON *v, char *s)
{
    if (strcmp(s, v->valuestring) != 0) {
        /* cJSON owns valuestring: swap the allocation (cJSON_free is free here) */
        cJSON_free(v->valuestring);
        v->valuestring = s;
    } else {
        free(s);
    }
    return TW_OK;
}

/* Every string and number leaf under v blanked where it sits (v is the
 * array or object value of a credential-named member). */
static tw_status blank_leaves(tw_redactor *r, cJSON *v)
{
    for (cJSON *c = v->child; c; c = c->next) {
        if (c->child) {
            tw_status st = blank_leaves(r, c);
            if (st != TW_OK)
                return st;
            continue;
        }
        if (!(cJSON_IsString(c) && c->valuestring && strcmp(c->valuestring, TW_REDACTED) != 0) &&
            !cJSON_IsNumber(c))
            continue;
        char *s = tw_strdup(TW_REDACTED);
        if (!s)
            return TW_ERR_NOMEM;
        if (cJSON_IsString(c))
            cJSON_free(c->valuestring);
        else {
            c->type = cJSON_String | (c->type & cJSON_StringIsConst);
            c->valueint = 0;
            c->valuedouble = 0;
        }
        c->valuestring = s;
        r->scrubbed++;
    }
    return TW_OK;
}

static tw_status scrub_json(tw_redactor *r, cJSON *v, size_t depth, size_t max_depth)
{
    if (depth > max_depth)
        return TW_OK; /* the loaders refuse deeper trees before this point */
    if (cJSON_IsString(v) && v->valuestring) {
        if (looks_container(v->valuestring) && depth < max_depth) {
            /* a JSON document inside a string (a tool call's arguments) */
            cJSON *inner = NULL;
            const char *s = v->valuestring;
            if (tw_json_parse(s, strlen(s), max_depth - depth, &inner, NULL) == TW_OK && inner) {
                size_t before = r->scrubbed;
                tw_status st = scrub_json(r, inner, depth + 1, max_depth);
                char *txt =
                    st == TW_OK && r->scrubbed != before ? tw_json_print(inner, NULL) : NULL;
                cJSON_Delete(inner);
                if (st != TW_OK)
                    return st;
                if (r->scrubbed != before) {
                    if (!txt)
                        return TW_ERR_NOMEM;
                    char *c = tw_strdup(txt);
                    cJSON_free(txt);
                    return c ? tw_red_swap_string(v, c) : TW_ERR_NOMEM;
                }
                return TW_OK;
            }
            cJSON_Delete(inner);
        }
        char *s = tw_redact_str(r, v->valuestring);
        return s ? tw_red_swap_string(v, s) : TW_ERR_NOMEM;
    }
    for (cJSON *c = v->child; c; c = c->next) {
        if (secret_member(r, v, c) && (cJSON_IsArray(c) || cJSON_IsObject(c))) {
            tw_status st = blank_leaves(r, c);
            if (st != TW_OK)
                return st;
            continue;
        }
        if (secret_member(r, v, c) && ((cJSON_IsString(c) && c->valuestring && c->valuestring[0] &&
                                        strcmp(c->valuestring, TW_REDACTED) != 0) ||
                                       cJSON_IsNumber(c))) {
            char *s = tw_strdup(TW_REDACTED);
            if (!s)
                return TW_ERR_NOMEM;
            tw_status st = TW_OK;
            if (cJSON_IsString(c)) {
                st = tw_redactor_add_value(r, c->valuestring);
                cJSON_free(c->valuestring);
            } else {
                c->type = cJSON_String | (c->type & cJSON_StringIsConst);
                c->valueint = 0;
                c->valuedouble = 0;
            }
            c->valuestring = s;
            r->scrubbed++;
            if (st != TW_OK)
                return st;
            continue;
        }
        if (c->string && !(c->type & cJSON_StringIsConst)) {
            char *k = tw_redact_str(r, c->string);
            if (!k)
                return TW_ERR_NOMEM;
            if (strcmp(k, c->string) != 0) {
                cJSON_free(c->string);
                c->string = k;
            } else {
                free(k);
            }
        }
        tw_status st = scrub_json(r, c, depth + 1, max_depth);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_redact_json(tw_redactor *r, cJSON *v, size_t max_depth)
{
    return v ? scrub_json(r, v, 0, max_depth ? max_depth : 64) : TW_OK;
}

/* ---- the process-wide set ---- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static char **g_values;
static size_t g_nvalues;
/* g_nvalues and the set's generation (bumped under g_mu whenever the set
 * changes), also read without the lock by tw_secret_static_clean */
static atomic_size_t g_count;
static atomic_ulong g_gen;
/* Static texts (string literals of the code) found clean against the set as
 * it stood at a generation: such a text is scrubbed once per change of the
 * set, not at every use. Each thread keeps its own verdicts, read without a
 * lock: a slot per hash of the text's address, overwritten on a collision
 * (the text is then scrubbed again). */
#define CLEAN_SLOTS 256
static _Thread_local struct {
    const char *s;
    unsigned long gen;
} t_clean[CLEAN_SLOTS];

tw_status tw_secret_add(const char *value)
{
    if (!value)
        return TW_OK;
    pthread_mutex_lock(&g_mu);
    size_t before = g_nvalues;
    tw_status st = add_value_to(&g_values, &g_nvalues, value, strlen(value));
    if (g_nvalues != before) {
        /* the set changed: the verdicts of the generation before are void */
        atomic_fetch_add(&g_gen, 1);
        atomic_store(&g_count, g_nvalues);
    }
    pthread_mutex_unlock(&g_mu);
    return st;
}

size_t tw_secret_count(void)
{
    pthread_mutex_lock(&g_mu);
    size_t n = g_nvalues;
    pthread_mutex_unlock(&g_mu);
    return n;
}

tw_status tw_secret_scrub(const char *s, size_t n, tw_buf *out, size_t *hold)
{
    pthread_mutex_lock(&g_mu);
    tw_status st = tw_scrub_values(g_values, g_nvalues, s, n, out, NULL, hold);
    pthread_mutex_unlock(&g_mu);
    return st;
}

tw_status tw_red_set_spans(const char *s, size_t n, tw_red_span **sp, size_t *nsp, size_t *cap)
{
    pthread_mutex_lock(&g_mu);
    tw_status st = tw_red_value_spans(g_values, g_nvalues, s, n, sp, nsp, cap);
    pthread_mutex_unlock(&g_mu);
    return st;
}

bool tw_secret_static_clean(const char *s)
{
    size_t n = strlen(s);
    if (!n)
        return true;
    size_t slot = (size_t)(((uintptr_t)s >> 3) * 2654435761u) % CLEAN_SLOTS;
    /* an empty set, or this thread's verdict of the set's generation: a
     * value added meanwhile is one added after this check */
    if (atomic_load(&g_count) == 0 ||
        (t_clean[slot].s == s && t_clean[slot].gen == atomic_load(&g_gen)))
        return true;
    pthread_mutex_lock(&g_mu);
    unsigned long gen = atomic_load(&g_gen);
    tw_buf b = {0};
    bool clean =
        g_nvalues == 0 || (tw_scrub_values(g_values, g_nvalues, s, n, &b, NULL, NULL) == TW_OK &&
                           b.len == n && memcmp(b.data, s, n) == 0);
    pthread_mutex_unlock(&g_mu);
    tw_buf_free(&b);
    if (clean) {
        t_clean[slot].s = s;
        t_clean[slot].gen = gen;
    }
    return clean;
}

void tw_secret_reset(void)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_nvalues; i++)
        free(g_values[i]);
    free(g_values);
    g_values = NULL;
    g_nvalues = 0;
    atomic_fetch_add(&g_gen, 1);
    atomic_store(&g_count, 0);
    pthread_mutex_unlock(&g_mu);
}
