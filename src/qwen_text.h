/* Internal: the fixed text around the tools of the Qwen3 chat template,
 * written by hermes_enc.c and recognised by request_chatml.c, and that of
 * the Qwen3-Coder and Qwen3.5 templates (XML tool calls), written by
 * qwen_xml_enc.c. */
#ifndef TOOLWIRE_QWEN_TEXT_H
#define TOOLWIRE_QWEN_TEXT_H

#define TW_QWEN_TOOLS_HEAD                                                                         \
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"             \
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
#define TW_QWEN_TOOLS_TAIL                                                                         \
    "\n</tools>\n\nFor each function call, return a json object with function name and "           \
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": "                 \
    "<function-name>, \"arguments\": <args-json-object>}\n</tool_call>"

/* The XML templates' instructions end alike. */
#define TW_QWEN_XML_REMINDER_REST                                                                  \
    "- Required parameters MUST be specified\n"                                                    \
    "- You may provide optional reasoning for your function call in natural language BEFORE "      \
    "the function call, but NOT after\n"                                                           \
    "- If there is no function call available, answer the question like normal with your "         \
    "current knowledge and do not tell the user about function calls\n"                            \
    "</IMPORTANT>"

#define TW_QWEN_CODER_DEFAULT_SYSTEM                                                               \
    "You are Qwen, a helpful AI assistant that can interact with a computer to solve tasks."
#define TW_QWEN_CODER_TOOLS_HEAD "\n\n# Tools\n\nYou have access to the following tools:\n\n<tools>"
#define TW_QWEN_CODER_TOOLS_TAIL                                                                   \
    "\n</tools>\n\n"                                                                               \
    "If you choose to call a tool ONLY reply in the following format with NO suffix:\n\n"          \
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n"             \
    "value_1\n</parameter>\n<parameter=example_parameter_2>\nvalue_2\n</parameter>\n"              \
    "</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"                                        \
    "- Function calls MUST follow the specified format: the tool calling block MUST begin with "   \
    "an opening <tool_call> tag and end with a closing </tool_call> "                              \
    "tag.\n" TW_QWEN_XML_REMINDER_REST

#define TW_QWEN35_TOOLS_HEAD "# Tools\n\nYou have access to the following functions:\n\n<tools>"
#define TW_QWEN35_TOOLS_TAIL                                                                       \
    "\n</tools>\n\n"                                                                               \
    "If you choose to call a function ONLY reply in the following format with NO suffix:\n\n"      \
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n"             \
    "value_1\n</parameter>\n<parameter=example_parameter_2>\n"                                     \
    "This is the value for the second parameter\nthat can span\nmultiple lines\n"                  \
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"                          \
    "- Function calls MUST follow the specified format: an inner <function=...></function> "       \
    "block must be nested within <tool_call></tool_call> XML tags\n" TW_QWEN_XML_REMINDER_REST

#endif
