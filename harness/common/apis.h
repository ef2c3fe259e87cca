/*
 * The HTTP APIs and the mock's profiles, read from the one table of formats
 * (src/format_table.h: TW_API_TABLE, TW_MOCK_PROFILE_TABLE): the kind of a
 * request path, the decoder of its answer, the fixture backend of a
 * recording of it, and the profiles' names and the kinds they answer.
 */
#ifndef TOOLWIRE_APIS_H
#define TOOLWIRE_APIS_H

#include <stdbool.h>
#include <stdio.h>

#include "../../src/format_table.h"

/* The API of a path; each kind's value is its one-letter code ('o' OpenAI
 * chat, 'a' Anthropic messages, 'g' /generate, 'm' Gemini, 'r' Responses). */
typedef enum tw_api_kind {
    TW_API_NONE = 0,
#define TW_X_API_KIND(ID, code, ...) TW_API_##ID = code,
    TW_API_TABLE(TW_X_API_KIND)
#undef TW_X_API_KIND
} tw_api_kind;

/* One bit per kind, TW_APIS_<ID> (the profiles' column). */
enum {
#define TW_X_API_BIT(ID, ...) TW_API_BIT_##ID,
    TW_API_TABLE(TW_X_API_BIT)
#undef TW_X_API_BIT
        TW_API_NKINDS
};
enum {
#define TW_X_API_SET(ID, ...) TW_APIS_##ID = 1u << TW_API_BIT_##ID,
    TW_API_TABLE(TW_X_API_SET)
#undef TW_X_API_SET
        TW_APIS_ANY = (1u << TW_API_NKINDS) - 1u
};

/* The kind of a request path: the first row of the table whose path ends
 * it (before any '?'); TW_API_NONE for none or NULL. */
tw_api_kind tw_path_kind(const char *path);
/* The decoder of an answer of kind k (streamed or not); NULL for none. */
const char *tw_api_decoder(tw_api_kind k, bool stream);
/* The decoder that judges a recorded answer (sse: an event stream) to a
 * request for path (import): the first row whose path ends it, before any
 * '?' or '#' and after a '/' when the ending starts with a letter; NULL
 * for none, or for a PATH-streamed kind whose path and answer disagree. */
const char *tw_api_recorded_decoder(const char *path, bool sse);
/* The fixture backend of a recording answered in the format decoder (the
 * row whose response or stream decoder it is); NULL for none. */
const char *tw_api_backend_of(const char *decoder);
/* "does not apply to …" for a check of another kind; "unknown endpoint". */
const char *tw_api_scope(tw_api_kind k);

/* The mock's profiles, in the order "auto" tries them. */
typedef enum tw_profile {
#define TW_X_PROFILE(ID, nm, apis, dec) TW_PROFILE_##ID,
    TW_MOCK_PROFILE_TABLE(TW_X_PROFILE)
#undef TW_X_PROFILE
        TW_NPROFILES
} tw_profile;

/* NULL-terminated names of the profiles, in table order. */
const char *const *tw_profile_names(void);
/* Write the profile names but skip (NULL: none), each with prefix (NULL:
 * none) before it, joined by ", " and wrapped before `width` columns (the
 * first line starts at column col), the lines after the first indented by
 * `indent` spaces (the --help lists). */
void tw_profile_list_print(FILE *out, const char *prefix, const char *skip, size_t indent,
                           size_t col, size_t width);
/* The profile named p; TW_NPROFILES for none (NULL, "auto", unknown). */
tw_profile tw_profile_of(const char *p);
/* Does profile p answer requests of kind k from model text? */
bool tw_profile_answers(tw_profile p, tw_api_kind k);
/* The text decoder profile p reads model text with when a fixture names
 * none; NULL when it has none of its own (the fixture's, or hermes). */
const char *tw_profile_decoder(tw_profile p);
/* Is p the reference server of one model dialect: a decoder of its own
 * other than hermes (answered only for fixtures that name that decoder,
 * /generate as vllm-native with it as the tool parser)? */
bool tw_profile_is_dialect(tw_profile p);
/* The dialect profile whose decoder is dec; TW_NPROFILES for none. */
tw_profile tw_profile_of_dialect(const char *dec);

#endif
