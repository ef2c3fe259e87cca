/* Internal: the fixed text of the gpt-oss chat template's Harmony prompt
 * (harmony-prompt), shared by its encoder (harmony_prompt.c) and reader
 * (request_harmony.c): the system message's pieces and the built-in tools'
 * sections, byte for byte as the template writes them. */
#ifndef TOOLWIRE_HARMONY_TEXT_H
#define TOOLWIRE_HARMONY_TEXT_H

#define TW_HM_SYSTEM "<|start|>system<|message|>"
#define TW_HM_IDENTITY "You are ChatGPT, a large language model trained by OpenAI."
#define TW_HM_CUTOFF "\nKnowledge cutoff: 2024-06\nCurrent date: "
#define TW_HM_REASONING "\n\nReasoning: "
#define TW_HM_TOOLS_HEAD "# Tools\n\n"
#define TW_HM_CHANNELS                                                                             \
    "# Valid channels: analysis, commentary, final. Channel must be included for every message."
#define TW_HM_FUNCTIONS_LINE                                                                       \
    "\nCalls to these tools must go to the commentary channel: 'functions'."
#define TW_HM_END "<|end|>"
#define TW_HM_DEVELOPER "<|start|>developer<|message|>"
#define TW_HM_INSTRUCTIONS "# Instructions\n\n"
#define TW_HM_NAMESPACE "# Tools\n\n## functions\n\nnamespace functions {\n\n"
#define TW_HM_NAMESPACE_END "} // namespace functions"

/* the browser tool's section */
#define TW_HM_BROWSER                                                                                          \
    "## browser\n"                                                                                             \
    "\n"                                                                                                       \
    "// Tool for browsing.\n"                                                                                  \
    "// The `cursor` appears in brackets before each browsing display: `[{cursor}]`.\n"                        \
    "// Cite information from the tool using the following format:\n"                                          \
    "// `【{cursor}†L{line_start}(-L{line_end})?】`, for example: `【6†L9-L11】` or `【8†L3】`.\n" \
    "// Do not quote more than 10 words directly from the tool output.\n"                                      \
    "// sources=web (default: web)\n"                                                                          \
    "namespace browser {\n"                                                                                    \
    "\n"                                                                                                       \
    "// Searches for information related to `query` and displays `topn` results.\n"                            \
    "type search = (_: {\n"                                                                                    \
    "query: string,\n"                                                                                         \
    "topn?: number, // default: 10\n"                                                                          \
    "source?: string,\n"                                                                                       \
    "}) => any;\n"                                                                                             \
    "\n"                                                                                                       \
    "// Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, "               \
    "showing `num_lines` lines.\n"                                                                             \
    "// Valid link ids are displayed with the formatting: `【{id}†.*】`.\n"                                \
    "// If `cursor` is not provided, the most recent page is implied.\n"                                       \
    "// If `id` is a string, it is treated as a fully qualified URL associated with `source`.\n"               \
    "// If `loc` is not provided, the viewport will be positioned at the beginning of the "                    \
    "document or centered on the most relevant passage, if available.\n"                                       \
    "// Use this function without `id` to scroll to a new location of an opened page.\n"                       \
    "type open = (_: {\n"                                                                                      \
    "id?: number | string, // default: -1\n"                                                                   \
    "cursor?: number, // default: -1\n"                                                                        \
    "loc?: number, // default: -1\n"                                                                           \
    "num_lines?: number, // default: -1\n"                                                                     \
    "view_source?: boolean, // default: false\n"                                                               \
    "source?: string,\n"                                                                                       \
    "}) => any;\n"                                                                                             \
    "\n"                                                                                                       \
    "// Finds exact matches of `pattern` in the current page, or the page given by `cursor`.\n"                \
    "type find = (_: {\n"                                                                                      \
    "pattern: string,\n"                                                                                       \
    "cursor?: number, // default: -1\n"                                                                        \
    "}) => any;\n"                                                                                             \
    "\n"                                                                                                       \
    "} // namespace browser\n"                                                                                 \
    "\n"

/* the python tool's section */
#define TW_HM_PYTHON                                                                               \
    "## python\n"                                                                                  \
    "\n"                                                                                           \
    "Use this tool to execute Python code in your chain of thought. The code will not be shown "   \
    "to the user. This tool should be used for internal reasoning, but not for code that is "      \
    "intended to be visible to the user (e.g. when creating plots, tables, or files).\n"           \
    "\n"                                                                                           \
    "When you send a message containing Python code to python, it will be executed in a stateful " \
    "Jupyter notebook environment. python will respond with the output of the execution or time "  \
    "out after 120.0 seconds. The drive at '/mnt/data' can be used to save and persist user "      \
    "files. Internet access for this session is UNKNOWN. Depends on the cluster.\n"                \
    "\n"

#endif
