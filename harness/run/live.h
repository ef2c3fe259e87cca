/*
 * Live expectations: what a fixture exchange expects of any conforming
 * server ("expect.live", checks LIV-01…LIV-07, docs/fixtures.md), and the
 * call-id placeholders ("$call_id[E]", "$call_id[E][C]") a multi-turn
 * exchange uses to send back the ids the server produced earlier.
 */
#ifndef TOOLWIRE_LIVE_H
#define TOOLWIRE_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"
#include "fixture.h"

/* One exchange's answer as the reference decoder of its path reads it. */
typedef struct tw_live_answer {
    bool decoded; /* res holds the decoded answer */
    tw_result res;
    int status;    /* HTTP status, 0 when no response arrived */
    char why[240]; /* why there is nothing to judge, when !decoded */
} tw_live_answer;

/*
 * Decode the response to exchange x (its path and whether its request
 * streams pick the decoder: openai-response/-stream, anthropic-response/
 * -stream, vllm-generate). Bounded by L. Never fails: out->why says why
 * nothing was decoded.
 */
void tw_live_decode(const tw_fx_exchange *x, int status, const char *body, size_t len,
                    const tw_limits *L, tw_live_answer *out);
void tw_live_answer_free(tw_live_answer *a);

/*
 * A copy of the request body with every placeholder string replaced by the id
 * of that call in answers[E] (E below nanswers). A placeholder that cannot be
 * resolved stays as written; *unresolved counts them and why names the first.
 * NULL only when out of memory.
 */
cJSON *tw_live_substitute(const cJSON *body, const tw_live_answer *answers, size_t nanswers,
                          size_t *unresolved, tw_error *err);

/*
 * The LIV verdicts of exchange k of f: expect.live against answers[k] (the
 * request's declared tools from the request decoder of its path; agrees_with
 * against answers[agrees_with]), and LIV-07 when its request holds
 * placeholders (unresolved and subst_why from tw_live_substitute). Checks
 * that do not apply get no verdict.
 */
void tw_live_judge(const tw_fixture *f, size_t k, const tw_live_answer *answers, size_t unresolved,
                   const char *subst_why, const tw_limits *L, tw_check_set *out);

/*
 * Did the answer follow the script directive of exchange x (docs/live.md,
 * "When the server does not follow the directive")? The step the directive
 * scripts for this turn (script.h) is read as the scripted model would; the
 * answer followed it when it makes calls of the same tools (as a multiset:
 * a real model may order parallel calls otherwise), or no call when the step
 * writes none. Arguments, text and reasoning are the expectations' to judge.
 * 1 followed, 0 not (why, n bytes, says how), -1 not judged: no directive
 * step for this turn, or no decoded answer.
 */
int tw_live_followed(const tw_fx_exchange *x, const tw_live_answer *a, const tw_limits *L,
                     char *why, size_t n);

#endif
