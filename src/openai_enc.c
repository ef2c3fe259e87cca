/* OpenAI encoders (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_ENCODER(tw_encoder_openai_request, "openai-request", TW_ENC_REQUEST);
TW_UNSUPPORTED_ENCODER(tw_encoder_openai_response, "openai-response", TW_ENC_RESULT);
TW_UNSUPPORTED_ENCODER(tw_encoder_openai_stream, "openai-stream", TW_ENC_RESULT);
