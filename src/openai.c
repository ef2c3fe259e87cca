/* OpenAI chat completions decoders (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_FORMAT(tw_format_openai_response, "openai-response");
TW_UNSUPPORTED_FORMAT(tw_format_openai_stream, "openai-stream");
