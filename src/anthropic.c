/* Anthropic messages decoders (placeholder until implemented). */
#include "formats.h"
TW_UNSUPPORTED_FORMAT(tw_format_anthropic_response, "anthropic-response");
TW_UNSUPPORTED_FORMAT(tw_format_anthropic_stream, "anthropic-stream");
