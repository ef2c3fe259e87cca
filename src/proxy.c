/* Prompt-only proxy (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_FORMAT(tw_format_proxy, "proxy");
TW_UNSUPPORTED_ENCODER(tw_encoder_proxy_prompt, "proxy-prompt", TW_ENC_REQUEST);
