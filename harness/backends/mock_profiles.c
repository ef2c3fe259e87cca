/* The mock's profiles (mock.h): their names and which fixtures each can answer. */
#include "mock_int.h"
#include "apis.h"
#include "names.h"

/* the profiles of the table of formats (apis.h), in the order auto tries them */
const char *const *tw_mock_profiles(void)
{
    return tw_profile_names();
}

bool tw_mock_profile_error(tw_error *err, const char *what, const char *p)
{
    const char *names[16] = {"auto"};
    size_t n = 1;
    const char *const *profiles = tw_profile_names();
    for (size_t i = 0; profiles[i] && n < sizeof names / sizeof names[0]; i++)
        names[n++] = profiles[i];
    return tw_unknown_name_error(err, what, p, names, n);
}

bool tw_mock_profile_known(const char *p)
{
    return (p && strcmp(p, "auto") == 0) || tw_profile_of(p) != TW_NPROFILES;
}

static bool ex_fits(const char *profile, const tw_fx_exchange *x)
{
    tw_api_kind kind = tw_path_kind(x->req.path);
    tw_profile p = tw_profile_of(profile);
    switch (p) {
    case TW_PROFILE_REPLAY: return x->has_response;
    case TW_PROFILE_SCRIPT:
        return !x->has_response && !x->model_text && !x->model_pass1 && !x->model_pass2;
    case TW_NPROFILES: return false;
    default: break;
    }
    if (x->has_response)
        return false; /* a recorded answer is judged as recorded */
    if (!tw_profile_answers(p, kind))
        return false;
    if (tw_profile_is_dialect(p)) /* the reference server of one model dialect */
        return x->model_text &&
               (!x->decode_format || strcmp(x->decode_format, tw_profile_decoder(p)) == 0);
    if (p == TW_PROFILE_VLLM_NATIVE)
        return x->model_pass1 || x->model_text;
    return x->model_text;
}

/* The fixture's backend is the decoder dec, or every exchange decodes with it. */
static bool names_decoder(const tw_fixture *f, const char *dec)
{
    if (f->backend && strcmp(f->backend, dec) == 0)
        return true;
    for (size_t i = 0; i < f->nexchanges; i++) {
        const char *d = f->exchanges[i].decode_format;
        if (!d || strcmp(d, dec) != 0)
            return false;
    }
    return f->nexchanges > 0;
}

const char *tw_mock_profile_for(const char *profile, const tw_fixture *f)
{
    if (!profile || strcmp(profile, "auto") != 0)
        return tw_mock_profile_fits(profile, f) ? profile : NULL;
    const char *const *profiles = tw_profile_names();
    /* auto takes a dialect's profile (qwen3-coder, harmony, …) only for a
     * fixture that names its decoder, and then before any other (the hermes
     * profile, earlier in the table than a dialect added after it, would
     * answer it too); the hermes profile answers a fixture without a decode
     * format as Hermes text */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; profiles[i]; i++) {
            bool dialect = tw_profile_is_dialect((tw_profile)i);
            if (dialect && !names_decoder(f, tw_profile_decoder((tw_profile)i)))
                continue;
            if (dialect == (pass == 0) && tw_mock_profile_fits(profiles[i], f))
                return profiles[i];
        }
    return NULL;
}

bool tw_mock_profile_fits(const char *profile, const tw_fixture *f)
{
    if (profile && strcmp(profile, "auto") == 0)
        return tw_mock_profile_for(profile, f) != NULL;
    if (!tw_mock_profile_known(profile) || !f->nexchanges)
        return false;
    for (size_t i = 0; i < f->nexchanges; i++)
        if (!ex_fits(profile, &f->exchanges[i]))
            return false;
    return true;
}
