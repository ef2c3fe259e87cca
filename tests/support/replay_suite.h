/*
 * Generated replay fixtures: one OpenAI chat-completions fixture whose
 * exchanges each answer their own question ("question X" -> "answer X"),
 * for the runs that time or compare many exchanges. Shared by the tests
 * (tests/run/test_run_select.c) and the benchmarks (bench/bench_jobs.c,
 * bench/bench_all.c); header only, so a benchmark needs no test library.
 */
#ifndef TW_REPLAY_SUITE_H
#define TW_REPLAY_SUITE_H

#include <stdio.h>

/*
 * Write to f a fixture named name (tags: a JSON array's inside, e.g. "\"odd\"",
 * or NULL for none) of n exchanges numbered first, first + 1, …; returns
 * fclose's result (0: written).
 */
static inline int replay_suite_write(FILE *f, const char *name, const char *tags, long first,
                                     long n)
{
    fprintf(f,
            "{\"fixture_version\":1,\"name\":\"%s\",\"description\":\"generated\",\"backend\":"
            "\"openai\",",
            name);
    if (tags)
        fprintf(f, "\"tags\":[%s],", tags);
    fputs("\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[", f);
    for (long k = 0; k < n; k++) {
        long x = first + k;
        fprintf(f,
                "%s{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                "\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                "\"question %ld\"}]}},\"response\":{\"status\":200,\"body\":{\"id\":\"c%ld\","
                "\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":"
                "[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"answer %ld\"},"
                "\"finish_reason\":\"stop\"}]}}}",
                k ? "," : "", x, x, x);
    }
    fputs("]}\n", f);
    return fclose(f);
}

#endif
