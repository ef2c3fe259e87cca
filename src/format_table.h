/* The one table of formats: tokens and string literals only, no code. The
 * library builds its registry from it (formats.h, registry.c); the harness
 * (the mock's profiles and path kinds, the checks' choice of decoder, import,
 * the --help lists), the fuzz build (fuzz/invariants.c, fuzz/CMakeLists.txt,
 * fuzz/build.sh, which read the T(...) lines below) and
 * tests/lib/test_format_table.c (which fails when a list drifts from it) read
 * their columns from it. docs/architecture.md, "Adding a format".
 *
 * TW_FORMAT_TABLE(D, E, R): one line per module, its name the object's own
 * (tests/lib/test_contract.c checks):
 *   D(symbol, name, family, fuzz)  a decoder (tw_format_ops): bytes -> tw_result;
 *                                  fuzz: its libFuzzer targets, (target, MODE)
 *                                  or (target, MODE, target, MODE), MODE BATCH or
 *                                  STREAM (fuzz/invariants.c); each target has
 *                                  corpus/<target>/, fuzz/<target>.dict and
 *                                  fuzz/<target>.options
 *   E(symbol, name, family, takes) an encoder (tw_encoder_ops): a neutral
 *                                  REQUEST or RESULT -> bytes
 *   R(symbol, name, family)        a request reader (tw_request_reader_ops):
 *                                  bytes -> tw_request
 * family is TEXT, JSON or SSE (tw_family, TW_FAMILY_ spelled out by the
 * users of the list). The order is that of every listing (--help,
 * tw_formats, tw_encoders).
 *
 * TW_API_TABLE(A): one line per HTTP API, the path kinds of the mock, the
 * checks, import and the proxy (tw_api_kind in the harness):
 *   A(ID, code, backend, path, path2, streamed, response, stream, scope, families)
 *     code      the kind's one-letter code (the value of TW_API_<ID>)
 *     backend   the fixture backend of a recording of it (import)
 *     path      the path's ending that says the kind, path2 a second or NULL
 *               (import asks for a '/' before an ending that starts with a
 *               letter)
 *     streamed  what asks for a stream: BODY (the request's "stream"), PATH
 *               (path2 is the streamed form) or NEVER
 *     response  the decoder of a whole answer, stream of a streamed one
 *               (the checks' choice of decoder: tw_decode_response)
 *     scope     what a check of another kind says it does not apply to
 *     families  the check families that judge its exchanges, in the order they
 *               run (names of the harness's check table, harness/checks/)
 * The order is the order of the test: the first row whose path ends the
 * request's path.
 *
 * TW_MOCK_PROFILE_TABLE(P): the embedded mock's profiles, in the order
 * "auto" tries them:
 *   P(ID, name, apis, decoder)
 *     apis      the kinds it answers from model text, as TW_APIS_* bits; ANY
 *               for replay and script
 *     decoder   the text decoder it reads model text with when the fixture
 *               names none (a reference server for that model: a profile
 *               whose decoder is not hermes answers OpenAI chat completions,
 *               and /generate as vllm-native with that decoder as its
 *               tool_parser, and "auto" takes it only for a fixture that
 *               names its decoder); NULL: the fixture's decode.format, or
 *               hermes
 *
 * TW_FUZZ_OTHER_TARGETS(T): the fuzz targets that are not a decoder's, with
 * the condition under which the build has them (ALWAYS; HAVE_SSE,
 * HAVE_FIXTURE, HAVE_IMPORT: once the module they drive is in the tree;
 * HAVE_JSON_DIFF: jansson installed; fuzz/detect.cmake). */
#ifndef TOOLWIRE_FORMAT_TABLE_H
#define TOOLWIRE_FORMAT_TABLE_H

/* clang-format off */
#define TW_FORMAT_TABLE(D, E, R)                                                                   \
    D(tw_format_think, "think", TEXT, (think, BATCH))                                           \
    D(tw_format_hermes, "hermes", TEXT, (hermes, BATCH, hermes_stream, STREAM))               \
    D(tw_format_fenced, "fenced", TEXT, (fenced, BATCH))                                        \
    D(tw_format_qwen3_coder, "qwen3-coder", TEXT, (qwen3_coder, BATCH))                         \
    D(tw_format_openai_response, "openai-response", JSON, (openai_response, BATCH))             \
    D(tw_format_openai_stream, "openai-stream", SSE, (openai_stream, STREAM))                   \
    D(tw_format_anthropic_response, "anthropic-response", JSON, (anthropic_response, BATCH))    \
    D(tw_format_anthropic_stream, "anthropic-stream", SSE, (anthropic_stream, STREAM))          \
    D(tw_format_vllm_generate, "vllm-generate", JSON, (vllm, BATCH))                            \
    D(tw_format_gemini, "gemini", JSON, (gemini, BATCH))                                        \
    D(tw_format_gemini_stream, "gemini-stream", SSE, (gemini_stream, STREAM))                   \
    D(tw_format_proxy, "proxy", TEXT, (proxy, BATCH))                                           \
    D(tw_format_openai_responses, "openai-responses", JSON, (openai_responses, BATCH))          \
    D(tw_format_openai_responses_stream, "openai-responses-stream", SSE, (openai_responses_stream, STREAM)) \
    E(tw_encoder_openai_request, "openai-request", JSON, REQUEST)                                  \
    E(tw_encoder_openai_response, "openai-response", JSON, RESULT)                                 \
    E(tw_encoder_openai_stream, "openai-stream", SSE, RESULT)                                      \
    E(tw_encoder_anthropic_request, "anthropic-request", JSON, REQUEST)                            \
    E(tw_encoder_anthropic_response, "anthropic-response", JSON, RESULT)                           \
    E(tw_encoder_anthropic_stream, "anthropic-stream", SSE, RESULT)                                \
    E(tw_encoder_hermes_prompt, "hermes-prompt", TEXT, REQUEST)                                    \
    E(tw_encoder_hermes_system, "hermes-system", TEXT, REQUEST)                                    \
    E(tw_encoder_qwen3_coder_prompt, "qwen3-coder-prompt", TEXT, REQUEST)                          \
    E(tw_encoder_qwen35_prompt, "qwen3.5-prompt", TEXT, REQUEST)                                   \
    E(tw_encoder_vllm_generate_request, "vllm-generate-request", JSON, REQUEST)                    \
    E(tw_encoder_vllm_generate_response, "vllm-generate-response", JSON, RESULT)                   \
    E(tw_encoder_proxy_prompt, "proxy-prompt", TEXT, REQUEST)                                      \
    E(tw_encoder_gemini_request, "gemini-request", JSON, REQUEST)                                  \
    E(tw_encoder_gemini_response, "gemini", JSON, RESULT)                                          \
    E(tw_encoder_gemini_stream, "gemini-stream", SSE, RESULT)                                      \
    E(tw_encoder_responses_request, "openai-responses-request", JSON, REQUEST)                     \
    E(tw_encoder_responses_response, "openai-responses", JSON, RESULT)                             \
    E(tw_encoder_responses_stream, "openai-responses-stream", SSE, RESULT)                         \
    R(tw_reader_openai_request, "openai-request", JSON)                                            \
    R(tw_reader_anthropic_request, "anthropic-request", JSON)                                      \
    R(tw_reader_vllm_generate_request, "vllm-generate-request", JSON)                              \
    R(tw_reader_gemini_request, "gemini-request", JSON)                                            \
    R(tw_reader_hermes_prompt, "hermes-prompt", TEXT)                                              \
    R(tw_reader_responses_request, "openai-responses-request", JSON)                               \
    R(tw_reader_qwen3_coder_prompt, "qwen3-coder-prompt", TEXT)                                    \
    R(tw_reader_qwen35_prompt, "qwen3.5-prompt", TEXT)                                            \
    D(tw_format_harmony, "harmony", TEXT, (harmony, STREAM))                                    \
    E(tw_encoder_harmony_output, "harmony", TEXT, RESULT)                                          \
    E(tw_encoder_harmony_prompt, "harmony-prompt", TEXT, REQUEST)                                  \
    R(tw_reader_harmony_prompt, "harmony-prompt", TEXT)                                            \
    D(tw_format_deepseek_v31, "deepseek-v3.1", TEXT, (deepseek_v31, STREAM))                    \
    E(tw_encoder_deepseek_v31_output, "deepseek-v3.1", TEXT, RESULT)                               \
    E(tw_encoder_deepseek_v31_prompt, "deepseek-v3.1-prompt", TEXT, REQUEST)                       \
    R(tw_reader_deepseek_v31_prompt, "deepseek-v3.1-prompt", TEXT)                                 \
    D(tw_format_kimi_k2, "kimi-k2", TEXT, (kimi_k2, STREAM))                                       \
    E(tw_encoder_kimi_k2_output, "kimi-k2", TEXT, RESULT)                                          \
    E(tw_encoder_kimi_k2_prompt, "kimi-k2-prompt", TEXT, REQUEST)                                  \
    E(tw_encoder_kimi_k2_thinking_prompt, "kimi-k2-thinking-prompt", TEXT, REQUEST)                \
    R(tw_reader_kimi_k2_prompt, "kimi-k2-prompt", TEXT)                                            \
    R(tw_reader_kimi_k2_thinking_prompt, "kimi-k2-thinking-prompt", TEXT)                          \
    D(tw_format_llama3, "llama3", TEXT, (llama3, STREAM))                                       \
    E(tw_encoder_llama3_output, "llama3", TEXT, RESULT)                                            \
    E(tw_encoder_llama31_prompt, "llama-3.1-prompt", TEXT, REQUEST)                                \
    E(tw_encoder_llama33_prompt, "llama-3.3-prompt", TEXT, REQUEST)                                \
    R(tw_reader_llama31_prompt, "llama-3.1-prompt", TEXT)                                          \
    R(tw_reader_llama33_prompt, "llama-3.3-prompt", TEXT)                                          \
    D(tw_format_mistral, "mistral", TEXT, (mistral, STREAM))                                    \
    E(tw_encoder_mistral_output, "mistral", TEXT, RESULT)                                          \
    E(tw_encoder_mistral_small_prompt, "mistral-small-3.2-prompt", TEXT, REQUEST)                  \
    R(tw_reader_mistral_small_prompt, "mistral-small-3.2-prompt", TEXT)                            \
    E(tw_encoder_devstral_small_prompt, "devstral-small-prompt", TEXT, REQUEST)                    \
    R(tw_reader_devstral_small_prompt, "devstral-small-prompt", TEXT)                              \
    E(tw_encoder_ministral3_reasoning_prompt, "ministral-3-reasoning-prompt", TEXT, REQUEST)       \
    R(tw_reader_ministral3_reasoning_prompt, "ministral-3-reasoning-prompt", TEXT)                 \
    D(tw_format_dsml, "dsml", TEXT, (dsml, STREAM))                                             \
    E(tw_encoder_dsml_output, "dsml", TEXT, RESULT)                                                \
    E(tw_encoder_deepseek_v32_prompt, "deepseek-v3.2-prompt", TEXT, REQUEST)                       \
    R(tw_reader_deepseek_v32_prompt, "deepseek-v3.2-prompt", TEXT)                                 \
    D(tw_format_glm, "glm", TEXT, (glm, STREAM))                                                   \
    E(tw_encoder_glm_output, "glm", TEXT, RESULT)                                                  \
    E(tw_encoder_glm46_prompt, "glm-4.6-prompt", TEXT, REQUEST)                                    \
    E(tw_encoder_glm47_prompt, "glm-4.7-prompt", TEXT, REQUEST)                                    \
    R(tw_reader_glm46_prompt, "glm-4.6-prompt", TEXT)                                              \
    R(tw_reader_glm47_prompt, "glm-4.7-prompt", TEXT)                                              \
    D(tw_format_minimax_m2, "minimax-m2", TEXT, (minimax_m2, STREAM))                              \
    E(tw_encoder_minimax_m2_output, "minimax-m2", TEXT, RESULT)                                    \
    E(tw_encoder_minimax_m2_prompt, "minimax-m2-prompt", TEXT, REQUEST)                            \
    R(tw_reader_minimax_m2_prompt, "minimax-m2-prompt", TEXT)                                      \
    D(tw_format_gemma4, "gemma4", TEXT, (gemma4, STREAM))                                          \
    E(tw_encoder_gemma4_output, "gemma4", TEXT, RESULT)                                            \
    E(tw_encoder_gemma4_prompt, "gemma-4-prompt", TEXT, REQUEST)                                   \
    R(tw_reader_gemma4_prompt, "gemma-4-prompt", TEXT)                                             \
    TW_FORMAT_TABLE_EXTRA(D, E, R)

/* Rows a test adds to the table (tests/lib/test_template.c: the template
 * as a module); none in the library. */
#ifndef TW_FORMAT_TABLE_EXTRA
#define TW_FORMAT_TABLE_EXTRA(D, E, R)
#endif

#define TW_API_TABLE(A)                                                                            \
    A(OPENAI, 'o', "openai", "chat/completions", NULL, BODY, "openai-response", "openai-stream",  \
      "does not apply to this exchange",                                                           \
      ("openai", "session", "hermes", "qwen-xml", "dialect", "numbers"))                                      \
    A(ANTHROPIC, 'a', "anthropic", "messages", NULL, BODY, "anthropic-response",                  \
      "anthropic-stream", "does not apply to an Anthropic exchange",                               \
      ("anthropic", "hermes", "numbers"))                                                          \
    A(GENERATE, 'g', "vllm-native", "generate", NULL, NEVER, "vllm-generate", "vllm-generate",    \
      "does not apply to a /generate exchange",                                                      \
      ("generate", "hermes", "qwen-xml", "dialect", "numbers"))     \
    A(GEMINI, 'm', "gemini", ":generateContent", ":streamGenerateContent", PATH, "gemini",        \
      "gemini-stream", "does not apply to a Gemini exchange", ("gemini", "hermes", "numbers"))     \
    A(RESPONSES, 'r', "openai", "/responses", NULL, BODY, "openai-responses",                     \
      "openai-responses-stream", "does not apply to a Responses exchange",                         \
      ("responses", "hermes"))

#define TW_MOCK_PROFILE_TABLE(P)                                                                   \
    P(REPLAY, "replay", ANY, NULL)                                                                 \
    P(QWEN3_CODER, "qwen3-coder", TW_APIS_OPENAI | TW_APIS_GENERATE, "qwen3-coder")                \
    P(HERMES, "hermes", TW_APIS_OPENAI, "hermes")                                                  \
    P(ANTHROPIC, "anthropic", TW_APIS_ANTHROPIC, NULL)                                             \
    P(VLLM_NATIVE, "vllm-native", TW_APIS_GENERATE, NULL)                                          \
    P(GEMINI, "gemini", TW_APIS_GEMINI, NULL)                                                      \
    P(SCRIPT, "script", ANY, NULL)                                                                 \
    P(HARMONY, "harmony", TW_APIS_OPENAI | TW_APIS_GENERATE, "harmony")                            \
    P(DEEPSEEK_V31, "deepseek-v3.1", TW_APIS_OPENAI | TW_APIS_GENERATE, "deepseek-v3.1")           \
    P(KIMI_K2, "kimi-k2", TW_APIS_OPENAI | TW_APIS_GENERATE, "kimi-k2")                            \
    P(LLAMA3, "llama3", TW_APIS_OPENAI | TW_APIS_GENERATE, "llama3")                               \
    P(MISTRAL, "mistral", TW_APIS_OPENAI | TW_APIS_GENERATE, "mistral")                            \
    P(DSML, "dsml", TW_APIS_OPENAI | TW_APIS_GENERATE, "dsml")                                     \
    P(GLM, "glm", TW_APIS_OPENAI | TW_APIS_GENERATE, "glm")                                        \
    P(MINIMAX_M2, "minimax-m2", TW_APIS_OPENAI | TW_APIS_GENERATE, "minimax-m2")                   \
    P(GEMMA4, "gemma4", TW_APIS_OPENAI | TW_APIS_GENERATE, "gemma4")

#define TW_FUZZ_OTHER_TARGETS(T)                                                                   \
    T(schema, ALWAYS)                                                                              \
    T(request, ALWAYS)                                                                             \
    T(redact, ALWAYS)                                                                              \
    T(report, ALWAYS)                                                                              \
    T(sse, HAVE_SSE)                                                                               \
    T(fixture, HAVE_FIXTURE)                                                                       \
    T(import, HAVE_IMPORT)                                                                         \
    T(json_diff, HAVE_JSON_DIFF)
/* clang-format on */

/* The fuzz column of a decoder row, one T(target, decoder name, MODE) per
 * target: TW_FUZZ_EACH(T, name, fuzz) inside a D(sym, name, fam, fuzz). A
 * decoder has one or two targets. */
#define TW_FUZZ_EACH(T_, nm, fuzz) TW_FUZZ_EACH_(T_, nm, TW_TABLE_UNPAREN fuzz)
/* a parenthesised column of the table, (a, b, …), as the list a, b, … */
#define TW_TABLE_UNPAREN(...) __VA_ARGS__
#define TW_FUZZ_EACH_(T_, nm, ...)                                                                 \
    TW_FUZZ_PICK_(__VA_ARGS__, TW_FUZZ_2_, _, TW_FUZZ_1_, _, _)(T_, nm, __VA_ARGS__)
#define TW_FUZZ_PICK_(a, b, c, d, m, ...) m
#define TW_FUZZ_1_(T_, nm, t, mode) T_(t, nm, mode)
#define TW_FUZZ_2_(T_, nm, t1, m1, t2, m2) T_(t1, nm, m1) T_(t2, nm, m2)

#endif
