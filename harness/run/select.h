/*
 * Which fixtures a command takes: --tag, --exclude-tag and --filter, one
 * parser and one test for every command that takes fixtures (run, main,
 * serve, record, clients).
 */
#ifndef TOOLWIRE_SELECT_H
#define TOOLWIRE_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "fixture.h"

/* At most this many --filter patterns, each at most TW_SELECT_MAX_PATTERN bytes. */
#define TW_SELECT_MAX_FILTERS 64
#define TW_SELECT_MAX_PATTERN 512

/* A selection: fixtures carrying every one of tags, none of xtags and, when
 * filters are given, matching any one of them. Every list may be NULL when
 * its count is 0. */
typedef struct tw_fixture_selection {
    const char *const *tags;
    size_t ntags;
    const char *const *xtags;
    size_t nxtags;
    /* fnmatch(3) patterns (no flags): a fixture matches by its name
     * ("openai/nonstream_single_call"), its file as given
     * ("fixtures/openai/nonstream_single_call.json") or any tail of its file
     * after a '/' ("openai/nonstream_single_call.json") */
    const char *const *filters;
    size_t nfilters;
} tw_fixture_selection;

/* The options of a command that selects fixtures, with the room for their values. */
typedef struct tw_selection_opts {
    const char *tag[TW_FIXTURE_MAX_TAGS];
    const char *xtag[TW_FIXTURE_MAX_TAGS];
    const char *filter[TW_SELECT_MAX_FILTERS];
    tw_fixture_selection sel; /* points into the arrays above */
} tw_selection_opts;

/* getopt_long values of --tag, --exclude-tag, --filter. */
enum { TW_SEL_OPT_TAG = 1300, TW_SEL_OPT_XTAG, TW_SEL_OPT_FILTER };

/* Their struct option entries (for a longopts table; needs <getopt.h>). */
#define TW_SEL_LONGOPTS                                                                            \
    {"tag", required_argument, NULL, TW_SEL_OPT_TAG},                                              \
        {"exclude-tag", required_argument, NULL, TW_SEL_OPT_XTAG},                                 \
    {                                                                                              \
        "filter", required_argument, NULL, TW_SEL_OPT_FILTER                                       \
    }

/* The --help lines of the three options (two-space indent, 29-column option field). */
#define TW_SEL_HELP                                                                                \
    "  --tag T                    only fixtures tagged T (repeatable: every one given)\n"          \
    "  --exclude-tag T            no fixture tagged T (repeatable: none of them)\n"                \
    "  --filter PATTERN           only fixtures whose name or file matches the glob\n"             \
    "                             PATTERN (fnmatch; e.g. 'openai/*stream*' or\n"                   \
    "                             'anthropic/ref_tool_call.json'; repeatable: any of them)\n"

void tw_selection_opts_init(tw_selection_opts *s);
/*
 * Take getopt_long's answer c with its value arg: true when c is one of the
 * three options (*err set and *bad true when its value is refused: not a tag
 * [a-z0-9-]+, an empty or too long pattern, too many values), false when c
 * is another option.
 */
bool tw_selection_option(tw_selection_opts *s, int c, const char *arg, bool *bad, tw_error *err);

/* Is anything selected by the options (any list non-empty)? */
bool tw_selection_given(const tw_fixture_selection *sel);
/* Does the fixture fit the selection? NULL selects every fixture. */
bool tw_fixture_selected(const tw_fixture *f, const tw_fixture_selection *sel);
/* The selection as options, for messages: " --tag a --filter 'x*'" ("" when none). */
void tw_selection_describe(const tw_fixture_selection *sel, tw_buf *out);

/* Add one --tag / --exclude-tag value to list (at most TW_FIXTURE_MAX_TAGS): false with why
 * when it is not a tag ([a-z0-9-]+) or the list is full. */
bool tw_tag_option_add(const char **list, size_t *n, const char *opt, const char *arg,
                       tw_error *err);

#endif
