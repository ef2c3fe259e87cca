/*
 * The conformance check catalog, written once (docs/checks.md). Each entry
 * is X(NAME, "ID", SEVERITY, FAMILY, "rule"):
 *   NAME      the enum name after TW_CHK_ (TW_CHK_OAI_R04): C code names a
 *             check only by it, so a misspelled check does not build;
 *   "ID"      the stable id the reports, fixtures and options spell
 *             ("OAI-R04"); never renumbered, never reused;
 *   SEVERITY  ERROR, WARN or INFO (tw_severity without TW_SEV_);
 *   FAMILY    who judges it (tw_check_family without TW_CHF_);
 *   "rule"    one line, as the reports print it.
 * The order is the report order. Strings become ids only through the
 * catalog (tw_check_from_name): an unknown id is refused where it enters.
 */
#ifndef TOOLWIRE_HARNESS_CHECK_IDS_H
#define TOOLWIRE_HARNESS_CHECK_IDS_H

/* clang-format off */
#define TW_CHECK_CATALOG(X) \
    X(OAI_R01, "OAI-R01", ERROR, OPENAI, \
      "non-streaming body is a chat.completion with at least one choice and an assistant " \
      "message") \
    X(OAI_R02, "OAI-R02", ERROR, OPENAI, \
      "every tool call has a non-empty id, unique in the message, type \"function\", a " \
      "non-empty name") \
    X(OAI_R03, "OAI-R03", ERROR, OPENAI, "the name is one of the request's tools") \
    X(OAI_R04, "OAI-R04", ERROR, OPENAI, \
      "function.arguments is a string holding one JSON object (not an object, not " \
      "double-encoded)") \
    X(OAI_R05, "OAI-R05", ERROR, OPENAI, "arguments satisfy the tool's JSON Schema") \
    X(OAI_R06, "OAI-R06", ERROR, OPENAI, \
      "finish_reason is tool_calls when calls are present, and not when none are") \
    X(OAI_R07, "OAI-R07", ERROR, OPENAI, \
      "no tool-call or think markup (<tool_call>, <think>) is left in content") \
    X(OAI_R08, "OAI-R08", INFO, OPENAI, \
      "the reasoning field's name (reasoning_content / reasoning)") \
    X(OAI_S01, "OAI-S01", ERROR, OPENAI, \
      "Content-Type: text/event-stream, every event's data is JSON or [DONE], the stream ends " \
      "with [DONE]") \
    X(OAI_S02, "OAI-S02", WARN, OPENAI, "the first chunk's delta carries role: \"assistant\"") \
    X(OAI_S03, "OAI-S03", ERROR, OPENAI, \
      "every tool-call delta has an index; the first fragment of an index carries id, type " \
      "and name; later fragments never change them") \
    X(OAI_S04, "OAI-S04", ERROR, OPENAI, \
      "per index, the concatenated argument fragments parse as one JSON object") \
    X(OAI_S05, "OAI-S05", ERROR, OPENAI, "parallel calls use distinct indexes") \
    X(OAI_S06, "OAI-S06", ERROR, OPENAI, \
      "exactly one choice chunk carries a finish_reason; only a usage chunk may follow it") \
    X(OAI_S07, "OAI-S07", ERROR, OPENAI, \
      "the streamed result equals the non-streamed result of the same request (compared as " \
      "JSON values)") \
    X(OAI_S08, "OAI-S08", ERROR, OPENAI, "no error arrives inside a 200 stream") \
    X(OAI_E01, "OAI-E01", ERROR, OPENAI, \
      "an error response uses the OpenAI error envelope {error: {message, type, param, code}}") \
    X(ANT_R01, "ANT-R01", ERROR, ANTHROPIC, \
      "tool_use blocks have an id, a name and an object input") \
    X(ANT_R02, "ANT-R02", ERROR, ANTHROPIC, \
      "stop_reason is tool_use exactly when tool_use blocks are present") \
    X(ANT_S01, "ANT-S01", ERROR, ANTHROPIC, \
      "event order: message_start, blocks (content_block_start, deltas, content_block_stop), " \
      "message_delta, message_stop; ping anywhere") \
    X(ANT_S02, "ANT-S02", ERROR, ANTHROPIC, \
      "per block, concatenated partial_json parses as one JSON object") \
    X(ANT_S03, "ANT-S03", WARN, ANTHROPIC, "every thinking block carries a signature") \
    X(HER_01, "HER-01", ERROR, TEXT, "every <tool_call> block is closed and its payload parses") \
    X(HER_02, "HER-02", ERROR, TEXT, "no tool call was emitted from inside a closed think block") \
    X(HER_03, "HER-03", WARN, TEXT, "every think block is closed") \
    X(VLN_01, "VLN-01", ERROR, TEXT, \
      "/generate responses carry thinking, response, tool_calls and, with calls, " \
      "pre_tool_text") \
    X(VLN_02, "VLN-02", ERROR, TEXT, \
      "thinking respects max_thinking_tokens, the response max_response_tokens") \
    X(NUM_01, "NUM-01", WARN, TEXT, \
      "streamed and non-streamed tool-call arguments spell every number the same way") \
    X(NUM_02, "NUM-02", ERROR, TEXT, \
      "numbers in the response's tool-call arguments have exactly the values the model wrote " \
      "(compared as decimal text, not as doubles: no integer precision lost)") \
    X(SES_01, "SES-01", ERROR, SESSION, \
      "a continuation with role: tool results for every pending call returns a final answer") \
    X(SES_02, "SES-02", ERROR, SESSION, \
      "a continuation with a missing or unknown tool_call_id is refused with 400 in the error " \
      "envelope") \
    X(SES_03, "SES-03", ERROR, SESSION, \
      "a strict-mode request without the session header is refused with 400") \
    X(RSP_01, "RSP-01", ERROR, RESPONSE, \
      "an HTTP response with a success status arrives where the fixture expects one (no error " \
      "status, no transport error)") \
    X(RES_01, "RES-01", ERROR, RESPONSE, \
      "the response, decoded by the fixture's reference decoder, is the fixture's expected " \
      "result: the same calls, names, arguments, content, reasoning and finish reason") \
    X(ORS_01, "ORS-01", ERROR, RESPONSES, \
      "Responses: the body is a response object with an output array; a stream is typed JSON " \
      "events (text/event-stream, type equal to the event name)") \
    X(ORS_02, "ORS-02", ERROR, RESPONSES, \
      "Responses stream: response.created first, output_item.added before its deltas and done, " \
      "one terminal event last") \
    X(ORS_03, "ORS-03", ERROR, RESPONSES, "Responses stream: sequence_number strictly increasing") \
    X(ORS_04, "ORS-04", ERROR, RESPONSES, \
      "Responses stream: every event names an added output_index and that item's item_id") \
    X(ORS_05, "ORS-05", ERROR, RESPONSES, \
      "Responses: every function_call has a non-empty call_id, unique, and a name the request " \
      "declares") \
    X(ORS_06, "ORS-06", ERROR, RESPONSES, \
      "Responses: every function_call's arguments are a string holding one JSON object") \
    X(ORS_07, "ORS-07", ERROR, RESPONSES, \
      "Responses stream: function_call_arguments.done and the done item equal the concatenated " \
      "deltas") \
    X(ORS_08, "ORS-08", ERROR, RESPONSES, \
      "Responses: the status agrees with the terminal event, incomplete_details and error") \
    X(ORS_09, "ORS-09", ERROR, RESPONSES, \
      "Responses: no error event and no failed status where a success is expected") \
    X(LIV_01, "LIV-01", ERROR, LIVE, "live: the expected tools were called, and no other") \
    X(LIV_02, "LIV-02", ERROR, LIVE, \
      "live: the number of tool calls is within the expected bounds") \
    X(LIV_03, "LIV-03", ERROR, LIVE, \
      "live: every call's arguments satisfy the declared tool's JSON Schema") \
    X(LIV_04, "LIV-04", ERROR, LIVE, "live: the answer carries text, or none, as expected") \
    X(LIV_05, "LIV-05", ERROR, LIVE, "live: the answer carries reasoning, or none, as expected") \
    X(LIV_06, "LIV-06", ERROR, LIVE, \
      "live: the same tool calls (names and argument values) as another exchange of the " \
      "fixture") \
    X(LIV_07, "LIV-07", ERROR, LIVE, \
      "live: every call-id placeholder of the request names a call the server made earlier") \
    X(CLI_01, "CLI-01", ERROR, CLIENT, \
      "every role: tool message answers a tool call of the previous assistant message, by id") \
    X(CLI_02, "CLI-02", ERROR, CLIENT, "every tool call is answered before the next user turn") \
    X(CLI_03, "CLI-03", ERROR, CLIENT, \
      "tool definitions are well formed: type \"function\", name matching " \
      "^[a-zA-Z0-9_-]{1,64}$, parameters an object schema") \
    X(CLI_04, "CLI-04", ERROR, CLIENT, \
      "assistant tool calls in history carry arguments as a JSON string") \
    X(CLI_05, "CLI-05", ERROR, CLIENT, \
      "Anthropic: tool results sit in one user message, tool_result blocks first") \
    X(CLI_06, "CLI-06", INFO, CLIENT, \
      "parallel_tool_calls is set explicitly when tools are present") \
    X(CLI_07, "CLI-07", WARN, CLIENT, "a client retried after 429/503 honours Retry-After") \
    X(CLI_08, "CLI-08", ERROR, CLIENT, \
      "Responses with store: false: reasoning is carried back with its encrypted_content") \
    X(CLI_09, "CLI-09", WARN, CLIENT, \
      "Responses: the call_ids sent back in input are those the earlier answers issued") \
    X(XLT_01, "XLT-01", ERROR, PROXY, \
      "proxied: the request reached the upstream, paired by the directive's nonce, and " \
      "decodes there") \
    X(XLT_02, "XLT-02", ERROR, PROXY, \
      "proxied: every tool arrives upstream with its name, description and parameters schema") \
    X(XLT_03, "XLT-03", ERROR, PROXY, \
      "proxied: the messages arrive upstream in order, with their roles and text") \
    X(XLT_04, "XLT-04", ERROR, PROXY, \
      "proxied: history tool calls (names, arguments) and tool results (text, error flag) " \
      "arrive, each result paired with its call by id") \
    X(XLT_05, "XLT-05", ERROR, PROXY, \
      "proxied: tool_choice and parallel tool calls arrive unchanged") \
    X(XLT_06, "XLT-06", WARN, PROXY, \
      "proxied: reasoning is enabled upstream exactly when the client enabled it") \
    X(XLT_07, "XLT-07", ERROR, PROXY, \
      "proxied: the answer carries the calls the model wrote (count, names, arguments)") \
    X(XLT_08, "XLT-08", ERROR, PROXY, "proxied: the answer carries the text the model wrote") \
    X(XLT_09, "XLT-09", ERROR, PROXY, "proxied: the answer carries the reasoning the model wrote") \
    X(XLT_10, "XLT-10", ERROR, PROXY, "proxied: the answer's finish reason maps the model's") \
    X(CLT_01, "CLT-01", ERROR, CLIENT_LIB, \
      "a client library surfaces every tool call with its id, name and exact arguments") \
    X(CLT_02, "CLT-02", ERROR, CLIENT_LIB, \
      "a client library hands on the answer's text unchanged") \
    X(CLT_03, "CLT-03", WARN, CLIENT_LIB, "a client library keeps the reasoning the server sent") \
    X(CLT_04, "CLT-04", ERROR, CLIENT_LIB, \
      "a client library raises on a truncated or malformed answer instead of handing on " \
      "partial calls") \
    X(CLT_05, "CLT-05", ERROR, CLIENT_LIB, \
      "a client library raises on an error event inside a 200 stream") \
    X(CLT_06, "CLT-06", WARN, CLIENT_LIB, \
      "a client library retrying after 429/503 honours Retry-After") \
    X(CLT_07, "CLT-07", ERROR, CLIENT_LIB, \
      "a client library sends tool results back with the ids of their calls")
/* clang-format on */

/* Gemini generateContent (checks_gemini.c), appended to the catalog. */
#define TW_CHECK_CATALOG_GEMINI(X)                                                                 \
    X(GEM_01, "GEM-01", ERROR, GEMINI,                                                             \
      "the body has candidates, each with content.parts an array of part objects")                 \
    X(GEM_02, "GEM-02", ERROR, GEMINI,                                                             \
      "every functionCall has a non-empty name and args a JSON object")                            \
    X(GEM_03, "GEM-03", ERROR, GEMINI,                                                             \
      "finishReason agrees with the content: STOP (or absent mid-stream) with calls, "             \
      "no MALFORMED_FUNCTION_CALL or UNEXPECTED_TOOL_CALL")                                        \
    X(GEM_04, "GEM-04", ERROR, GEMINI,                                                             \
      "a stream is text/event-stream, each event a whole GenerateContentResponse, and it ends "    \
      "with a finishReason")                                                                       \
    X(GEM_05, "GEM-05", ERROR, GEMINI,                                                             \
      "streamed partialArgs assemble into a JSON object and every willContinue is closed")         \
    X(GEM_06, "GEM-06", WARN, GEMINI,                                                              \
      "a blocked prompt (promptFeedback.blockReason) is reported, not an empty answer")            \
    X(GEM_C01, "GEM-C01", ERROR, CLIENT,                                                           \
      "Gemini requests: every functionResponse answers a functionCall of the model turn "          \
      "before it (by id, else by name), and every call of that turn is answered")                  \
    X(GEM_C02, "GEM-C02", WARN, CLIENT,                                                            \
      "Gemini requests: every thoughtSignature the model gave on a call comes back in "            \
      "the model turns sent back (a reference server signs every call turn)")

/* Qwen3-Coder XML tool-call text (checks_text.c), appended to the catalog. */
#define TW_CHECK_CATALOG_QWEN(X)                                                                   \
    X(QWX_01, "QWX-01", ERROR, TEXT,                                                               \
      "the response's tool calls are the calls the qwen3-coder decoder reads from the model "      \
      "text: same names in order, arguments equal as JSON values (typed by the schema, "           \
      "strings kept as written)")                                                                  \
    X(QWX_02, "QWX-02", ERROR, TEXT,                                                               \
      "no Qwen3-Coder XML tool-call markup (<function=, <parameter=, </parameter>, "               \
      "</function>) is left in content")

/* The model dialects' text (checks_dialect.c), appended to the catalog. */
#define TW_CHECK_CATALOG_DIALECT(X)                                                                \
    X(DLX_01, "DLX-01", ERROR, TEXT,                                                               \
      "the response's tool calls are the calls the dialect's reference decoder reads from the "    \
      "model text: as many, same names in order, arguments equal as JSON values")                  \
    X(DLX_02, "DLX-02", ERROR, TEXT,                                                               \
      "the response's content is the content the reference decoder reads: no piece of the "        \
      "dialect's markup left in it, none of the text lost")                                        \
    X(DLX_03, "DLX-03", ERROR, TEXT,                                                               \
      "the reasoning is separated as the reference decoder separates it: none of it in content, "  \
      "none of the content in it")                                                                 \
    X(DLX_04, "DLX-04", WARN, TEXT,                                                                \
      "a call id the model wrote (Kimi K2 functions.NAME:INDEX, Mistral [CALL_ID]) is the "        \
      "response's id for that call")                                                               \
    X(DLX_05, "DLX-05", ERROR, TEXT,                                                               \
      "finish_reason is tool_calls exactly when the reference decoder reads a call from the "      \
      "model text")

/* Thinking signatures sent back (checks_client.c), appended to the catalog. */
#define TW_CHECK_CATALOG_SIGN(X)                                                                   \
    X(CLI_10, "CLI-10", ERROR, CLIENT,                                                             \
      "Anthropic requests: every thinking block sent back carries the signature its answer "       \
      "gave, unchanged (redacted_thinking its data): none missing, altered or another vendor's")

/* What a model-output parser reads (harness/parsers/, docs/parsers.md), appended to the catalog. */
#define TW_CHECK_CATALOG_PARSER(X)                                                                 \
    X(PRS_01, "PRS-01", ERROR, PARSER,                                                             \
      "the parser reads as many calls as the reference decoder, with the same names in order")     \
    X(PRS_02, "PRS-02", ERROR, PARSER,                                                             \
      "each call's arguments equal the reference decoder's as JSON values")                        \
    X(PRS_03, "PRS-03", ERROR, PARSER,                                                             \
      "the content equals the reference decoder's, byte for byte")                                 \
    X(PRS_04, "PRS-04", ERROR, PARSER,                                                             \
      "the reasoning equals the reference decoder's, byte for byte")                               \
    X(PRS_05, "PRS-05", ERROR, PARSER,                                                             \
      "the parser throws only where the reference decoder refuses something too")                  \
    X(PRS_06, "PRS-06", ERROR, PARSER,                                                             \
      "streamed, the shown message never retracts: content and reasoning only grow, a call keeps " \
      "its name, its arguments only grow")                                                         \
    X(PRS_07, "PRS-07", ERROR, PARSER,                                                             \
      "streamed, the final message equals the message of the text parsed in one piece")            \
    X(PRS_08, "PRS-08", ERROR, PARSER,                                                             \
      "the driver answers by the protocol: no crash, no hang, no bad output")

/* Who judges a check, and on what. */
typedef enum tw_check_family {
    TW_CHF_OPENAI = 0, /* checks_openai.c: OpenAI chat bodies and streams */
    TW_CHF_ANTHROPIC,  /* checks_anthropic.c: Anthropic messages and streams */
    TW_CHF_TEXT,       /* checks_text.c: tool-call text, /generate, numbers */
    TW_CHF_SESSION,    /* checks_session.c: strict sessions */
    TW_CHF_RESPONSE,   /* checks.c: the HTTP status */
    TW_CHF_LIVE,       /* live.c: expectations for any conforming server */
    TW_CHF_PROXY,      /* xlt.c: what a proxy forwarded upstream and back */
    TW_CHF_CLIENT,     /* checks_client.c: requests a client sent to the mock */
    TW_CHF_CLIENT_LIB, /* clients.c: what a client library handed its caller */
    TW_CHF_GEMINI,     /* checks_gemini.c: Gemini generateContent bodies and streams */
    TW_CHF_RESPONSES,  /* checks_responses.c: OpenAI Responses bodies and streams */
    TW_CHF_PARSER,     /* parsers/: what a model-output parser read (docs/parsers.md) */
} tw_check_family;

/* One enumerator per catalog entry, in catalog order; TW_CHK_COUNT last. */
typedef enum tw_check_id {
#define TW_CHECK_ENUM_(name, id, sev, fam, rule) TW_CHK_##name,
    TW_CHECK_CATALOG(TW_CHECK_ENUM_) TW_CHECK_CATALOG_GEMINI(TW_CHECK_ENUM_)
        TW_CHECK_CATALOG_QWEN(TW_CHECK_ENUM_) TW_CHECK_CATALOG_DIALECT(TW_CHECK_ENUM_)
            TW_CHECK_CATALOG_SIGN(TW_CHECK_ENUM_) TW_CHECK_CATALOG_PARSER(TW_CHECK_ENUM_)
#undef TW_CHECK_ENUM_
                TW_CHK_COUNT
} tw_check_id;

#endif
