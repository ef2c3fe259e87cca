/* Hermes/Qwen prompt encoders (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_ENCODER(tw_encoder_hermes_prompt, "hermes-prompt", TW_ENC_REQUEST);
TW_UNSUPPORTED_ENCODER(tw_encoder_hermes_system, "hermes-system", TW_ENC_REQUEST);
