/* Internal: the list of registered formats (one line each). */
#ifndef TOOLWIRE_FORMATS_H
#define TOOLWIRE_FORMATS_H

#include "toolwire/decode.h"

extern const tw_format_ops tw_format_think;
extern const tw_format_ops tw_format_hermes;
extern const tw_format_ops tw_format_fenced;

#define TW_FORMAT_LIST(X)                                                      \
    X(tw_format_think)                                                         \
    X(tw_format_hermes)                                                        \
    X(tw_format_fenced)

#endif
