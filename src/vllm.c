/* vLLM-native /generate (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_FORMAT(tw_format_vllm_generate, "vllm-generate");
TW_UNSUPPORTED_ENCODER(tw_encoder_vllm_generate_request, "vllm-generate-request", TW_ENC_REQUEST);
TW_UNSUPPORTED_ENCODER(tw_encoder_vllm_generate_response, "vllm-generate-response", TW_ENC_RESULT);
