/* The encoder registry. */
#include "toolwire/encode.h"

#include <string.h>

#include "formats.h"

static const tw_encoder_ops *const all_encoders[] = {
#define TW_X_ENCODER(sym) &sym,
    TW_ENCODER_LIST(TW_X_ENCODER)
#undef TW_X_ENCODER
        NULL};

const tw_encoder_ops *const *tw_encoders(void) { return all_encoders; }

const tw_encoder_ops *tw_encoder_find(const char *name)
{
    for (size_t i = 0; all_encoders[i]; i++)
        if (strcmp(all_encoders[i]->name, name) == 0)
            return all_encoders[i];
    return NULL;
}

tw_status tw_unsupported_encode_request(const tw_request *r, const tw_encode_opts *o, tw_buf *out)
{
    (void)r, (void)o, (void)out;
    return TW_ERR_UNSUPPORTED;
}

tw_status tw_unsupported_encode_result(const tw_result *r, const tw_encode_opts *o, tw_buf *out)
{
    (void)r, (void)o, (void)out;
    return TW_ERR_UNSUPPORTED;
}
