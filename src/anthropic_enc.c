/* Anthropic encoders (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_ENCODER(tw_encoder_anthropic_request, "anthropic-request", TW_ENC_REQUEST);
TW_UNSUPPORTED_ENCODER(tw_encoder_anthropic_response, "anthropic-response", TW_ENC_RESULT);
TW_UNSUPPORTED_ENCODER(tw_encoder_anthropic_stream, "anthropic-stream", TW_ENC_RESULT);
