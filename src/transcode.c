/*
 * Transcoding through the neutral model: read a request or a result in one
 * format, write it in another.
 */
#include "alloc.h"
#include "toolwire/transcode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/request.h"
#include "toolwire/request_chatml.h"
#include "toolwire/request_vllm.h"
#include "toolwire/registry.h"

void tw_neutral_value_free(tw_neutral_value *v)
{
    if (v->kind == TW_NEUTRAL_REQUEST)
        tw_request_free(&v->req);
    else if (v->kind == TW_NEUTRAL_RESULT)
        tw_result_free(&v->res);
    memset(v, 0, sizeof *v);
}

static bool is_neutral_name(const char *n)
{
    return strcmp(n, "neutral") == 0 || strcmp(n, "neutral-request") == 0 ||
           strcmp(n, "neutral-result") == 0;
}

bool tw_transcode_is_source(const char *name)
{
    return is_neutral_name(name) || tw_request_reader_find(name) != NULL ||
           tw_format_find(name) != NULL;
}

bool tw_transcode_is_target(const char *name)
{
    return is_neutral_name(name) || tw_encoder_find(name) != NULL;
}

/* The vendor whose signatures a format carries, NULL for none. */
static const char *signer_of(const char *fmt)
{
    if (strncmp(fmt, "anthropic", 9) == 0)
        return "Anthropic";
    if (strncmp(fmt, "gemini", 6) == 0)
        return "Gemini";
    if (strncmp(fmt, "openai-responses", 16) == 0)
        return "OpenAI Responses";
    return NULL;
}

static tw_status say(tw_error *err, tw_status st, const char *msg)
{
    tw_error_set(err, st, -1, NULL, "%s", msg);
    return st;
}

static tw_status read_neutral(const char *from, const char *buf, size_t len, const tw_limits *l,
                              tw_neutral_value *out, tw_error *err)
{
    if (len > l->max_input_bytes)
        return say(err, TW_ERR_LIMIT, "the input is larger than max_input_bytes");
    cJSON *j = NULL;
    tw_error je;
    tw_status st = tw_json_parse(buf, len, l->max_depth, &j, &je);
    if (st != TW_OK) {
        if (err)
            *err = je;
        return st;
    }
    bool request = strcmp(from, "neutral-request") == 0 ||
                   (strcmp(from, "neutral") == 0 && tw_json_get(j, "messages"));
    if (request) {
        st = tw_request_read(j, l, &out->req, err);
        if (st == TW_OK)
            out->kind = TW_NEUTRAL_REQUEST;
    } else {
        st = tw_result_read(j, l, &out->res, err);
        if (st == TW_OK)
            out->kind = TW_NEUTRAL_RESULT;
    }
    cJSON_Delete(j);
    return st;
}

tw_status tw_transcode_read(const char *from, const char *buf, size_t len,
                            const tw_decode_opts *dopts, tw_neutral_value *out,
                            tw_diag_list *warnings, tw_error *err)
{
    memset(out, 0, sizeof *out);
    tw_decode_opts dflt;
    memset(&dflt, 0, sizeof dflt);
    if (!dopts)
        dopts = &dflt;
    tw_limits l;
    tw_limits_resolve(&l, &dopts->limits);
    if (is_neutral_name(from))
        return read_neutral(from, buf, len, &l, out, err);
    const tw_request_reader_ops *rd = tw_request_reader_find(from);
    if (rd) {
        tw_status st = rd->decode(buf, len, dopts, &out->req, err);
        if (st == TW_OK && warnings)
            st = tw_diag_extend(warnings, &out->req.warnings);
        if (st != TW_OK) {
            tw_request_free(&out->req);
            memset(out, 0, sizeof *out);
            return st;
        }
        out->kind = TW_NEUTRAL_REQUEST;
        out->signer = signer_of(from);
        return TW_OK;
    }
    const tw_format_ops *f = tw_format_find(from);
    if (!f)
        return say(err, TW_ERR_INVALID, "unknown source format");
    tw_status st = f->decode(buf, len, dopts, &out->res);
    if (st != TW_OK) {
        tw_error_set(err, st, -1, NULL, "the %s decoder failed: %s", from,
                     st == TW_ERR_UNSUPPORTED ? "not implemented yet" : tw_code_message(st));
        memset(out, 0, sizeof *out);
        return st;
    }
    out->kind = TW_NEUTRAL_RESULT;
    out->signer = signer_of(from);
    return TW_OK;
}

/* A signature the target's vendor did not make: not written, reported. */
static tw_status foreign_signature(const tw_neutral_value *v, const char *to, const char *field,
                                   const tw_encode_opts *o)
{
    if (!o || !o->warnings)
        return TW_OK;
    return tw_diag_addf(o->warnings, TW_D_NOT_CARRIED, -1,
                        "%s: a thinking signature made by %s is not written: %s verifies only "
                        "its own signatures and would refuse it",
                        field, v->signer, signer_of(to));
}

/* Decode diagnostics have no place in a wire format: report them. */
static tw_status carry_diags(const tw_result *r, const tw_encode_opts *o)
{
    if (!o || !o->warnings)
        return TW_OK;
    const tw_diag_list *lists[2] = {&r->errors, &r->warnings};
    static const char *const names[2] = {"error", "warning"};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < lists[k]->len; i++) {
            const tw_diag *d = &lists[k]->items[i];
            tw_status st = tw_diag_addf(o->warnings, d->code, d->offset, "decode %s: %s", names[k],
                                        d->message ? d->message : "");
            if (st != TW_OK)
                return st;
        }
        if (lists[k]->dropped) {
            tw_status st =
                tw_diag_addf(o->warnings, TW_D_DIAGS_TRUNCATED, -1,
                             "decode %s: %zu more were not kept", names[k], lists[k]->dropped);
            if (st != TW_OK)
                return st;
        }
    }
    return TW_OK;
}

tw_status tw_transcode_write(const tw_neutral_value *v, const char *to, const tw_encode_opts *o,
                             tw_buf *out, tw_error *err)
{
    bool req = v->kind == TW_NEUTRAL_REQUEST;
    if (v->kind == TW_NEUTRAL_NONE)
        return say(err, TW_ERR_INVALID, "no value to write");
    if (is_neutral_name(to)) {
        if ((strcmp(to, "neutral-request") == 0 && !req) ||
            (strcmp(to, "neutral-result") == 0 && req))
            return say(err, TW_ERR_INVALID,
                       req ? "the input is a request, not a result"
                           : "the input is a result, not a request");
        tw_limits l;
        tw_limits_resolve(&l, o ? &o->limits : NULL);
        size_t save = out->max;
        if (out->max == 0 || out->max > out->len + l.max_output_bytes)
            out->max = out->len + l.max_output_bytes;
        size_t len0 = out->len;
        tw_status st = req ? tw_request_write(out, &v->req, TW_JSON_COMPACT)
                           : tw_result_write(out, &v->res, TW_JSON_COMPACT);
        out->max = save;
        if (st != TW_OK) {
            tw_error_set(err, st, -1, NULL, "writing the neutral %s failed: %s",
                         req ? "request" : "result", tw_code_message(st));
            out->len = len0;
            if (out->data)
                out->data[len0] = '\0';
        }
        return st;
    }
    const tw_encoder_ops *e = tw_encoder_find(to);
    if (!e)
        return say(err, TW_ERR_INVALID, "unknown target format");
    if ((e->input == TW_ENC_REQUEST) != req) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s encodes a %s, but the input is a %s", to,
                     e->input == TW_ENC_REQUEST ? "request" : "result (a model's answer)",
                     req ? "request" : "result");
        return TW_ERR_INVALID;
    }
    tw_status st = TW_OK;
    const char *target = signer_of(to);
    bool foreign = v->signer && target && strcmp(v->signer, target) != 0;
    if (req) {
        tw_request r = v->req;
        tw_message *copy = NULL;
        for (size_t i = 0; foreign && st == TW_OK && i < r.nmessages; i++) {
            if (!r.messages[i].thinking_signature)
                continue;
            if (!copy) { /* the messages as they are, without the foreign signatures */
                copy = tw_malloc(r.nmessages * sizeof *copy);
                if (!copy)
                    return say(err, TW_ERR_NOMEM, "out of memory");
                memcpy(copy, r.messages, r.nmessages * sizeof *copy);
            }
            copy[i].thinking_signature = NULL;
            char field[64];
            snprintf(field, sizeof field, "messages[%zu].thinking_signature", i);
            st = foreign_signature(v, to, field, o);
        }
        if (copy)
            r.messages = copy;
        if (st == TW_OK)
            st = e->encode_request(&r, o, out);
        tw_free(copy);
    } else {
        tw_result r = v->res;
        if (foreign && r.msg.thinking_signature) {
            r.msg.thinking_signature = NULL;
            st = foreign_signature(v, to, "thinking_signature", o);
        }
        if (st == TW_OK)
            st = carry_diags(&r, o);
        if (st == TW_OK)
            st = e->encode_result(&r, o, out);
    }
    if (st != TW_OK)
        tw_error_set(err, st, -1, NULL, "the %s encoder failed: %s", to,
                     st == TW_ERR_UNSUPPORTED ? "not implemented yet" : tw_code_message(st));
    return st;
}

tw_status tw_transcode(const char *from, const char *to, const char *buf, size_t len,
                       const tw_encode_opts *o, tw_buf *out, tw_error *err)
{
    tw_decode_opts d;
    memset(&d, 0, sizeof d);
    if (o)
        d.limits = o->limits;
    tw_neutral_value v;
    tw_status st = tw_transcode_read(from, buf, len, &d, &v, o ? o->warnings : NULL, err);
    if (st != TW_OK)
        return st;
    st = tw_transcode_write(&v, to, o, out, err);
    tw_neutral_value_free(&v);
    return st;
}
