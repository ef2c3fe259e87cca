/* Internal: the special tokens of DeepSeek V3.2 (full-width bars U+FF5C,
 * U+2581 in place of spaces) and the fixed texts of its chat template that
 * its decoder, output and prompt encoders and prompt reader share (dsml.c,
 * dsml_enc.c, request_dsml.c). */
#ifndef TOOLWIRE_DSML_TEXT_H
#define TOOLWIRE_DSML_TEXT_H

#define DSML_BAR "\xef\xbd\x9c" /* U+FF5C */
#define DSML_SP "\xe2\x96\x81"  /* U+2581 */
#define DSML_TOK DSML_BAR "DSML" DSML_BAR

#define D_THINK_OPEN "<think>"
#define D_THINK_CLOSE "</think>"
#define D_CALLS_OPEN "<" DSML_TOK "function_calls>"
#define D_CALLS_CLOSE "</" DSML_TOK "function_calls>"
#define D_INVOKE_OPEN "<" DSML_TOK "invoke" /* then ` name="NAME">` */
#define D_INVOKE_CLOSE "</" DSML_TOK "invoke>"
#define D_PARAM_OPEN "<" DSML_TOK "parameter" /* then ` name="K" string="true|false">` */
#define D_PARAM_CLOSE "</" DSML_TOK "parameter>"
#define D_EOS "<" DSML_BAR "end" DSML_SP "of" DSML_SP "sentence" DSML_BAR ">"
#define D_BOS "<" DSML_BAR "begin" DSML_SP "of" DSML_SP "sentence" DSML_BAR ">"
#define D_USER "<" DSML_BAR "User" DSML_BAR ">"
#define D_ASSISTANT "<" DSML_BAR "Assistant" DSML_BAR ">"

/* The prompt: the tool list the template appends to the system prompt (a
 * function's JSON a line between head and tail), and the results of a call
 * turn. */
#define D_TOOLS_HEAD                                                                               \
    "## Tools\n\nYou have access to a set of tools you can use to answer the user's question.\n"   \
    "You can invoke functions by writing a \"" D_CALLS_OPEN "\" block like the following as "      \
    "part of your reply to the user:\n" D_CALLS_OPEN "\n" D_INVOKE_OPEN                            \
    " name=\"$FUNCTION_NAME\">\n" D_PARAM_OPEN                                                     \
    " name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE" D_PARAM_CLOSE               \
    "\n...\n" D_INVOKE_CLOSE "\n" D_INVOKE_OPEN " name=\"$FUNCTION_NAME2\">\n...\n" D_INVOKE_CLOSE \
    "\n" D_CALLS_CLOSE                                                                             \
    "\n\nString and scalar parameters should be specified as is without any escaping or "          \
    "quotes, while lists and objects should use JSON format. The \"string\" attribute should "     \
    "be set to \"true\" for string type parameters and \"false\" for other types (numbers, "       \
    "booleans, arrays, objects).\n\nIf the thinking_mode is enabled, then after function "         \
    "results you should strongly consider outputting a thinking block. Here is an "                \
    "example:\n\n" D_CALLS_OPEN "\n...\n" D_CALLS_CLOSE                                            \
    "\n\n<function_results>\n...\n</function_results>\n\n" D_THINK_OPEN                            \
    "...thinking about results" D_THINK_CLOSE                                                      \
    "\n\nHere are the functions available in JSONSchema format:\n<functions>\n"
#define D_TOOLS_TAIL "</functions>\n"
#define D_RESULTS_OPEN "\n\n<function_results>"
#define D_RESULT_OPEN "\n<result>"
#define D_RESULT_CLOSE "</result>"
#define D_RESULTS_CLOSE "\n</function_results>"

#define DSML_LEN(lit) (sizeof(lit) - 1)

#endif
