/* Which fixtures a command takes (select.h). */
#include "select.h"

#include <fnmatch.h>
#include <string.h>

void tw_selection_opts_init(tw_selection_opts *s)
{
    memset(s, 0, sizeof *s);
    s->sel.tags = s->tag;
    s->sel.xtags = s->xtag;
    s->sel.filters = s->filter;
}

bool tw_tag_option_add(const char **list, size_t *n, const char *opt, const char *arg,
                       tw_error *err)
{
    if (!tw_tag_valid(arg)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "%s wants a tag of 1 to %d characters from [a-z0-9-], got '%s'", opt,
                     TW_FIXTURE_MAX_TAG_LEN, arg);
        return false;
    }
    if (*n >= TW_FIXTURE_MAX_TAGS) {
        tw_error_set(err, TW_ERR_LIMIT, -1, NULL, "at most %d values of %s", TW_FIXTURE_MAX_TAGS,
                     opt);
        return false;
    }
    list[(*n)++] = arg;
    return true;
}

bool tw_selection_option(tw_selection_opts *s, int c, const char *arg, bool *bad, tw_error *err)
{
    *bad = false;
    switch (c) {
    case TW_SEL_OPT_TAG:
        *bad = !tw_tag_option_add(s->tag, &s->sel.ntags, "--tag", arg, err);
        return true;
    case TW_SEL_OPT_XTAG:
        *bad = !tw_tag_option_add(s->xtag, &s->sel.nxtags, "--exclude-tag", arg, err);
        return true;
    case TW_SEL_OPT_FILTER:
        if (!*arg || strlen(arg) > TW_SELECT_MAX_PATTERN) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "--filter wants a pattern of 1 to %d bytes, got %zu",
                         TW_SELECT_MAX_PATTERN, strlen(arg));
            *bad = true;
        } else if (s->sel.nfilters >= TW_SELECT_MAX_FILTERS) {
            tw_error_set(err, TW_ERR_LIMIT, -1, NULL, "at most %d values of --filter",
                         TW_SELECT_MAX_FILTERS);
            *bad = true;
        } else
            s->filter[s->sel.nfilters++] = arg;
        return true;
    default: return false;
    }
}

bool tw_selection_given(const tw_fixture_selection *sel)
{
    return sel && (sel->ntags || sel->nxtags || sel->nfilters);
}

/* The pattern against the name, the file, and every tail of the file after a '/'. */
static bool filter_matches(const char *pat, const tw_fixture *f)
{
    if (f->name && fnmatch(pat, f->name, 0) == 0)
        return true;
    for (const char *p = f->path; p; p = strchr(p, '/')) {
        if (*p == '/')
            p++;
        if (fnmatch(pat, p, 0) == 0)
            return true;
    }
    return false;
}

bool tw_fixture_selected(const tw_fixture *f, const tw_fixture_selection *sel)
{
    if (!sel)
        return true;
    for (size_t i = 0; i < sel->ntags; i++)
        if (!tw_fixture_has_tag(f, sel->tags[i]))
            return false;
    for (size_t i = 0; i < sel->nxtags; i++)
        if (tw_fixture_has_tag(f, sel->xtags[i]))
            return false;
    if (!sel->nfilters)
        return true;
    for (size_t i = 0; i < sel->nfilters; i++)
        if (filter_matches(sel->filters[i], f))
            return true;
    return false;
}

void tw_selection_describe(const tw_fixture_selection *sel, tw_buf *out)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->ntags; i++)
        tw_buf_printf(out, " --tag %s", sel->tags[i]);
    for (size_t i = 0; i < sel->nxtags; i++)
        tw_buf_printf(out, " --exclude-tag %s", sel->xtags[i]);
    for (size_t i = 0; i < sel->nfilters; i++)
        tw_buf_printf(out, " --filter '%s'", sel->filters[i]);
}
