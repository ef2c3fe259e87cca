/* Internal: statement macros shared by the writers and readers. */
#ifndef TOOLWIRE_TW_MACROS_H
#define TOOLWIRE_TW_MACROS_H

#include "toolwire/core.h"

/* Return the status of x from the enclosing function unless it is TW_OK. */
#define TRY(x)                                                                                     \
    do {                                                                                           \
        tw_status st_ = (x);                                                                       \
        if (st_ != TW_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

/* Append a string literal (its length known at compile time). */
#define PUTS(b, lit) tw_buf_append((b), (lit), sizeof(lit) - 1)

#endif
