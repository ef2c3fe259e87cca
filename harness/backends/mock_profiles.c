/* The mock's profiles (mock.h): their names and which fixtures each can answer. */
#include "mock_int.h"
#include "names.h"

static const char *const profiles[] = {"replay", "qwen3-coder", "hermes", "anthropic",
                                        "vllm-native", "gemini", "script", NULL};

const char *const *tw_mock_profiles(void) { return profiles; }

bool tw_mock_profile_error(tw_error *err, const char *what, const char *p)
{
    const char *names[16] = {"auto"};
    size_t n = 1;
    for (size_t i = 0; profiles[i] && n < sizeof names / sizeof names[0]; i++)
        names[n++] = profiles[i];
    return tw_unknown_name_error(err, what, p, names, n);
}

bool tw_mock_profile_known(const char *p)
{
    if (p && strcmp(p, "auto") == 0)
        return true;
    for (size_t i = 0; profiles[i]; i++)
        if (p && strcmp(p, profiles[i]) == 0)
            return true;
    return false;
}

static bool ex_fits(const char *profile, const tw_fx_exchange *x)
{
    char kind = tw_path_kind(x->req.path);
    if (strcmp(profile, "replay") == 0)
        return x->has_response;
    if (strcmp(profile, "script") == 0)
        return !x->has_response && !x->model_text && !x->model_pass1 && !x->model_pass2;
    if (x->has_response)
        return false; /* a recorded answer is judged as recorded */
    if (strcmp(profile, "qwen3-coder") == 0) /* hermes over the qwen3-coder decoder */
        return x->model_text && (kind == 'o' || kind == 'g') &&
               (!x->decode_format || strcmp(x->decode_format, "qwen3-coder") == 0);
    if (strcmp(profile, "hermes") == 0)
        return x->model_text && kind == 'o';
    if (strcmp(profile, "anthropic") == 0)
        return x->model_text && kind == 'a';
    if (strcmp(profile, "vllm-native") == 0)
        return (x->model_pass1 || x->model_text) && kind == 'g';
    if (strcmp(profile, "gemini") == 0)
        return x->model_text && kind == 'm';
    return false;
}

/* The fixture's backend is qwen3-coder, or every exchange decodes as qwen3-coder. */
static bool names_qwen3_coder(const tw_fixture *f)
{
    if (f->backend && strcmp(f->backend, "qwen3-coder") == 0)
        return true;
    for (size_t i = 0; i < f->nexchanges; i++) {
        const char *d = f->exchanges[i].decode_format;
        if (!d || strcmp(d, "qwen3-coder") != 0)
            return false;
    }
    return f->nexchanges > 0;
}

const char *tw_mock_profile_for(const char *profile, const tw_fixture *f)
{
    if (!profile || strcmp(profile, "auto") != 0)
        return tw_mock_profile_fits(profile, f) ? profile : NULL;
    for (size_t i = 0; profiles[i]; i++) {
        /* auto takes qwen3-coder only for a fixture that names it: the hermes
         * profile answers a fixture without a decode format as Hermes text */
        if (strcmp(profiles[i], "qwen3-coder") == 0 && !names_qwen3_coder(f))
            continue;
        if (tw_mock_profile_fits(profiles[i], f))
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
