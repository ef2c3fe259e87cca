/* The HTTP APIs and the mock's profiles of the table of formats (apis.h). */
#include "apis.h"

#include <stddef.h>
#include <string.h>

static const struct api_row {
    tw_api_kind kind;
    const char *backend, *path, *path2;
    enum { BODY, PATH, NEVER } streamed;
    const char *response, *stream, *scope;
} apis[] = {
#define TW_X_API_ROW(ID, code, be, p1, p2, how, resp, strm, sc, fams)                              \
    {TW_API_##ID, be, p1, p2, how, resp, strm, sc},
    TW_API_TABLE(TW_X_API_ROW)
#undef TW_X_API_ROW
};

enum { NAPIS = sizeof apis / sizeof apis[0] };

static bool ends_with(const char *s, size_t n, const char *end)
{
    size_t k = end ? strlen(end) : 0;
    return end && n >= k && memcmp(s + n - k, end, k) == 0;
}

static const struct api_row *row_of(tw_api_kind k)
{
    for (size_t i = 0; i < NAPIS; i++)
        if (apis[i].kind == k)
            return &apis[i];
    return NULL;
}

tw_api_kind tw_path_kind(const char *path)
{
    if (!path)
        return TW_API_NONE;
    size_t n = strlen(path);
    const char *q = memchr(path, '?', n);
    if (q)
        n = (size_t)(q - path);
    for (size_t i = 0; i < NAPIS; i++)
        if (ends_with(path, n, apis[i].path) || ends_with(path, n, apis[i].path2))
            return apis[i].kind;
    return TW_API_NONE;
}

const char *tw_api_decoder(tw_api_kind k, bool stream)
{
    const struct api_row *r = row_of(k);
    return r ? (stream ? r->stream : r->response) : NULL;
}

/* the ending, after a '/' when it starts with a letter */
static bool ends_at_boundary(const char *s, size_t n, const char *end)
{
    if (!ends_with(s, n, end))
        return false;
    size_t k = strlen(end);
    bool letter = (*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z');
    return !letter || (n > k && s[n - k - 1] == '/');
}

const char *tw_api_recorded_decoder(const char *path, bool sse)
{
    if (!path)
        return NULL;
    size_t n = strcspn(path, "?#");
    for (size_t i = 0; i < NAPIS; i++) {
        bool first = ends_at_boundary(path, n, apis[i].path);
        bool second = !first && ends_at_boundary(path, n, apis[i].path2);
        if (!first && !second)
            continue;
        if (apis[i].streamed == PATH && second != sse)
            return NULL; /* Gemini's stream without alt=sse: a JSON array, no decoder */
        return sse ? apis[i].stream : apis[i].response;
    }
    return NULL;
}

const char *tw_api_backend_of(const char *decoder)
{
    for (size_t i = 0; decoder && i < NAPIS; i++)
        if (strcmp(decoder, apis[i].response) == 0 || strcmp(decoder, apis[i].stream) == 0)
            return apis[i].backend;
    return NULL;
}

const char *tw_api_scope(tw_api_kind k)
{
    const struct api_row *r = row_of(k);
    return r ? r->scope : "unknown endpoint";
}

#define ANY TW_APIS_ANY
static const struct {
    const char *name;
    unsigned apis;
    const char *decoder;
} profiles[] = {
#define TW_X_PROFILE_ROW(ID, nm, set, dec) {nm, set, dec},
    TW_MOCK_PROFILE_TABLE(TW_X_PROFILE_ROW)
#undef TW_X_PROFILE_ROW
};
#undef ANY

const char *const *tw_profile_names(void)
{
    static const char *const names[] = {
#define TW_X_PROFILE_NAME(ID, nm, set, dec) nm,
        TW_MOCK_PROFILE_TABLE(TW_X_PROFILE_NAME)
#undef TW_X_PROFILE_NAME
            NULL};
    return names;
}

tw_profile tw_profile_of(const char *p)
{
    for (size_t i = 0; p && i < TW_NPROFILES; i++)
        if (strcmp(p, profiles[i].name) == 0)
            return (tw_profile)i;
    return TW_NPROFILES;
}

bool tw_profile_answers(tw_profile p, tw_api_kind k)
{
    if (p >= TW_NPROFILES || k == TW_API_NONE)
        return false;
    for (size_t i = 0; i < NAPIS; i++)
        if (apis[i].kind == k)
            return (profiles[p].apis >> i) & 1u;
    return false;
}

const char *tw_profile_decoder(tw_profile p)
{
    return p < TW_NPROFILES ? profiles[p].decoder : NULL;
}

bool tw_profile_is_dialect(tw_profile p)
{
    const char *d = tw_profile_decoder(p);
    return d && strcmp(d, "hermes") != 0;
}

tw_profile tw_profile_of_dialect(const char *dec)
{
    for (size_t i = 0; dec && i < TW_NPROFILES; i++)
        if (tw_profile_is_dialect((tw_profile)i) && strcmp(profiles[i].decoder, dec) == 0)
            return (tw_profile)i;
    return TW_NPROFILES;
}

void tw_profile_list_print(FILE *out, const char *prefix, const char *skip, size_t indent,
                           size_t col, size_t width)
{
    const char *const *names = tw_profile_names();
    const char *pre = prefix ? prefix : "";
    size_t n = 0, last = 0;
    for (size_t i = 0; names[i]; i++)
        if (!skip || strcmp(names[i], skip) != 0)
            last = i, n++;
    bool lead = false;
    for (size_t i = 0; names[i]; i++) {
        if (skip && strcmp(names[i], skip) == 0)
            continue;
        bool comma = i != last;
        size_t len = strlen(pre) + strlen(names[i]) + (comma ? 1 : 0);
        if (lead && col + 1 + len > width) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (lead) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%s%s%s", pre, names[i], comma ? "," : "");
        col += len;
        lead = true;
    }
    (void)n;
}
