/* Placeholders for registry entries whose module is not built yet. */
#include "formats.h"

tw_status tw_unsupported_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                tw_result *out)
{
    (void)buf, (void)len, (void)o, (void)out;
    return TW_ERR_UNSUPPORTED;
}
tw_status tw_unsupported_init(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    (void)s, (void)o, (void)fn, (void)u;
    return TW_ERR_UNSUPPORTED;
}
tw_status tw_unsupported_feed(void *s, const char *b, size_t n)
{
    (void)s, (void)b, (void)n;
    return TW_ERR_UNSUPPORTED;
}
tw_status tw_unsupported_finish(void *s, tw_result *out)
{
    (void)s, (void)out;
    return TW_ERR_UNSUPPORTED;
}
void tw_unsupported_release(void *s) { (void)s; }
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
