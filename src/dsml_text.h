/* Internal: the special tokens of DeepSeek V3.2 (full-width bars U+FF5C,
 * U+2581 in place of spaces) that its decoder, output and prompt encoders
 * and prompt reader share (dsml.c, dsml_enc.c, request_dsml.c). */
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

#define DSML_LEN(lit) (sizeof(lit) - 1)

#endif
