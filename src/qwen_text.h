/* Internal: the fixed text around the tools of the Qwen3 chat template,
 * written by hermes_enc.c and recognised by request_chatml.c. */
#ifndef TOOLWIRE_QWEN_TEXT_H
#define TOOLWIRE_QWEN_TEXT_H

#define TW_QWEN_TOOLS_HEAD                                                                         \
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"             \
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
#define TW_QWEN_TOOLS_TAIL                                                                         \
    "\n</tools>\n\nFor each function call, return a json object with function name and "           \
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": "                 \
    "<function-name>, \"arguments\": <args-json-object>}\n</tool_call>"

#endif
