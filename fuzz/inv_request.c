/*
 * The request target: every request reader (openai-request, anthropic-request,
 * gemini-request, …; the registry's readers) over arbitrary bytes, then every
 * request encoder over what was read. Header as for the decoder targets
 * (invariants.h: options and limits); the seed byte picks the reader
 * (tw_fz_request_reader): a byte equal to a reader's own value (FNV-1a of
 * its name, modulo 256) picks that reader whatever the table adds later, so
 * seeds and regression inputs keep theirs (fuzz/seed-corpus.sh writes each
 * seed with its reader's value); any other byte picks by its index modulo the
 * number of readers, spreading mutated inputs over all of them.
 *
 * Invariants: a reader answers TW_OK or a status (never a diagnostic code);
 * on failure the request is empty and the error says why; reading and each
 * encode take work linear in the bytes (src/work.h: no walk back over
 * earlier messages per message); an encoder answers TW_OK, TW_ERR_LIMIT (its
 * output cap) or another status, never a diagnostic code, and leaves the
 * output empty on failure; an encoder of the reader's own format writes
 * bytes the reader reads back (or refuses over a cap only, or a number it
 * warned it printed as Infinity); a prompt reader
 * keeps every NUL of the prompt in message text; nothing leaks.
 */
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "toolwire/encode.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"
#include "work.h"

/* as for the decoders: a few passes over the body, constant work a message */
#define REQ_WORK_PER_BYTE 64u

static void expect_empty(const tw_request *r, const char *name, tw_status st)
{
    TW_FZ_CHECK(r->nmessages == 0 && r->messages == NULL && r->ntools == 0 && r->tools == NULL &&
                    r->model == NULL && r->options == NULL && r->warnings.len == 0,
                "%s: failed with %s but the request is not empty", name, tw_code_name(st));
}

static void encode_all(const tw_request *q, const tw_request_reader_ops *rd, const tw_fz_setup *s)
{
    for (const tw_encoder_ops *const *e = tw_encoders(); *e; e++) {
        if ((*e)->input != TW_ENC_REQUEST)
            continue;
        tw_encode_opts eo;
        memset(&eo, 0, sizeof eo);
        eo.limits = s->L;
        eo.parallel_tool_calls = -1;
        tw_diag_list warn;
        memset(&warn, 0, sizeof warn);
        eo.warnings = &warn;
        tw_buf out = {0};
        tw_work_reset();
        tw_status st = (*e)->encode_request(q, &eo, &out);
        uint64_t work = tw_work_count();
        TW_FZ_CHECK(tw_code_is_status(st), "%s -> %s: returned the diagnostic code %s", rd->name,
                    (*e)->name, tw_code_name(st));
        for (size_t i = 0; i < warn.len; i++)
            tw_fz_check_text(warn.items[i].message, (*e)->name);
        TW_FZ_CHECK(work <= REQ_WORK_PER_BYTE * ((uint64_t)s->len + out.len + 64),
                    "%s -> %s: %llu units of work for %zu input and %zu output bytes", rd->name,
                    (*e)->name, (unsigned long long)work, s->len, out.len);
        TW_FZ_CHECK(st == TW_OK || out.len == 0, "%s -> %s: failed with %s after writing %zu bytes",
                    rd->name, (*e)->name, tw_code_name(st), out.len);
        TW_FZ_CHECK(st != TW_OK || out.len <= s->L.max_output_bytes,
                    "%s -> %s: %zu bytes written, over max_output_bytes %zu", rd->name, (*e)->name,
                    out.len, s->L.max_output_bytes);
        if (st == TW_OK && strcmp((*e)->name, rd->name) == 0 && out.len <= s->L.max_input_bytes) {
            /* the reader reads its own format's encoding back */
            tw_request back;
            tw_error err = {.offset = -1};
            tw_status bs = rd->decode(out.data ? out.data : "", out.len, &s->o, &back, &err);
            /* a cap may refuse it: the encoding can spell values longer; and a
             * number the prompt prints as Python's Infinity (number_inexact)
             * is no JSON a tools line can hold */
            bool inexact = false;
            for (size_t i = 0; i < warn.len; i++)
                inexact |= warn.items[i].code == TW_D_NUMBER_INEXACT;
            TW_FZ_CHECK(bs == TW_OK || bs == TW_ERR_LIMIT || (inexact && bs == TW_ERR_PARSE),
                        "%s: its encoder's output is refused (%s: %s)", rd->name, tw_code_name(bs),
                        err.message);
            tw_request_free(&back);
        }
        tw_diag_list_free(&warn);
        tw_buf_free(&out);
    }
}

static size_t count_nul(const char *p, size_t n)
{
    size_t k = 0;
    if (!p)
        return 0; /* an empty buffer */
    for (const char *e = p + n; (p = memchr(p, '\0', (size_t)(e - p))) != NULL; p++)
        k++;
    return k;
}

/* A prompt reader keeps every NUL of the prompt: its text goes to message
 * contents and thinking (buffers with a length); a name, a schema or an
 * argument cannot hold one, so a prompt that puts one there is refused or its
 * block kept as content, never cut short. Only text the qwen3-coder decoder
 * drops from a call block with a warning (xml_stray_text, xml_param_outside,
 * a repeated parameter's duplicate_key, or one past max_diags) may take some
 * with it. */
static void check_prompt_nul(const tw_request *q, const tw_request_reader_ops *rd, const char *in,
                             size_t n)
{
    size_t want = count_nul(in, n), got = 0;
    for (size_t i = 0; i < q->nmessages; i++)
        got += count_nul(q->messages[i].content.data, q->messages[i].content.len) +
               count_nul(q->messages[i].thinking.data, q->messages[i].thinking.len);
    /* text the qwen3-coder decoder drops from a call block says so */
    bool dropped = q->warnings.dropped > 0; /* past max_diags: counted only */
    for (size_t i = 0; i < q->warnings.len; i++)
        dropped |= q->warnings.items[i].code == TW_D_XML_STRAY_TEXT ||
                   q->warnings.items[i].code == TW_D_XML_PARAM_OUTSIDE ||
                   q->warnings.items[i].code == TW_D_DUPLICATE_KEY ||
                   q->warnings.items[i].code == TW_D_CALL_DUPLICATE_KEY;
    TW_FZ_CHECK(got == want || (dropped && got < want),
                "%s: the prompt holds %zu NUL bytes, its messages %zu", rd->name, want, got);
}

unsigned tw_fz_request_ring(const char *name)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % 256u;
}

const tw_request_reader_ops *tw_fz_request_reader(unsigned seed)
{
    size_t n = 0;
    const tw_module *mods = tw_modules(&n);
    const tw_request_reader_ops *readers[64];
    size_t nr = 0;
    for (size_t i = 0; i < n && nr < 64; i++) {
        if (mods[i].kind != TW_MODULE_REQUEST_READER)
            continue;
        readers[nr++] = mods[i].reader;
        if (tw_fz_request_ring(mods[i].reader->name) == seed % 256u)
            return mods[i].reader;
    }
    return nr ? readers[seed % nr] : NULL;
}

int tw_fz_request(const uint8_t *data, size_t size)
{
    tw_fz_setup s;
    tw_fz_read_header(data, size, &s);
    const tw_request_reader_ops *rd = tw_fz_request_reader(s.seed);
    TW_FZ_CHECK(rd != NULL, "request: no request reader registered");
    bool mem = tw_fz_mem_enabled();
    int64_t base = tw_fz_mem_live();
    char *in = tw_fz_copy(s.body, s.len);
    tw_request q;
    memset(&q, 0xA5, sizeof q); /* the reader initialises *out */
    tw_error err = {.offset = -1};
    tw_work_reset();
    tw_status st = rd->decode(in, s.len, &s.o, &q, &err);
    uint64_t work = tw_work_count();
    TW_FZ_CHECK(tw_code_is_status(st), "%s: returned the diagnostic code %s", rd->name,
                tw_code_name(st));
    TW_FZ_CHECK(work <= REQ_WORK_PER_BYTE * ((uint64_t)s.len + 64),
                "%s: %llu units of work for %zu input bytes", rd->name, (unsigned long long)work,
                s.len);
    if (st == TW_OK) {
        TW_FZ_CHECK(q.nmessages <= s.L.max_messages, "%s: %zu messages, over max_messages %zu",
                    rd->name, q.nmessages, s.L.max_messages);
        for (size_t i = 0; i < q.warnings.len; i++)
            tw_fz_check_text(q.warnings.items[i].message, rd->name);
        size_t nl = strlen(rd->name);
        if (nl > 7 && strcmp(rd->name + nl - 7, "-prompt") == 0)
            check_prompt_nul(&q, rd, in, s.len);
        encode_all(&q, rd, &s);
    } else {
        expect_empty(&q, rd->name, st);
        TW_FZ_CHECK(err.message[0] != '\0', "%s: failed with %s and no message", rd->name,
                    tw_code_name(st));
        tw_fz_check_text(err.message, rd->name);
    }
    tw_request_free(&q);
    free(in);
    TW_FZ_CHECK(!mem || tw_fz_mem_live() == base, "%s: %lld bytes leaked", rd->name,
                (long long)(tw_fz_mem_live() - base));
    return 0;
}
