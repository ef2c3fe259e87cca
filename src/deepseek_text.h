/* Internal: the special tokens of DeepSeek V3.1 (full-width bars U+FF5C and
 * U+2581 in place of spaces) that its decoder, output and prompt encoders
 * and prompt reader share (deepseek.c, deepseek_enc.c, request_deepseek.c). */
#ifndef TOOLWIRE_DEEPSEEK_TEXT_H
#define TOOLWIRE_DEEPSEEK_TEXT_H

#define DS_BAR "\xef\xbd\x9c" /* U+FF5C */
#define DS_SP "\xe2\x96\x81"  /* U+2581 */

#define T_THINK_OPEN "<think>"
#define T_THINK_CLOSE "</think>"
#define T_CALLS_BEGIN "<" DS_BAR "tool" DS_SP "calls" DS_SP "begin" DS_BAR ">"
#define T_CALLS_END "<" DS_BAR "tool" DS_SP "calls" DS_SP "end" DS_BAR ">"
#define T_CALL_BEGIN "<" DS_BAR "tool" DS_SP "call" DS_SP "begin" DS_BAR ">"
#define T_CALL_END "<" DS_BAR "tool" DS_SP "call" DS_SP "end" DS_BAR ">"
#define T_SEP "<" DS_BAR "tool" DS_SP "sep" DS_BAR ">"
#define T_EOS "<" DS_BAR "end" DS_SP "of" DS_SP "sentence" DS_BAR ">"
#define T_BOS "<" DS_BAR "begin" DS_SP "of" DS_SP "sentence" DS_BAR ">"
#define T_USER "<" DS_BAR "User" DS_BAR ">"
#define T_ASSISTANT "<" DS_BAR "Assistant" DS_BAR ">"
#define T_OUT_BEGIN "<" DS_BAR "tool" DS_SP "output" DS_SP "begin" DS_BAR ">"
#define T_OUT_END "<" DS_BAR "tool" DS_SP "output" DS_SP "end" DS_BAR ">"

#define DS_LEN(lit) (sizeof(lit) - 1)

#endif
