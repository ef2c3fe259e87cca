/* The mark of libtoolwire's public API. */
#ifndef TOOLWIRE_API_H
#define TOOLWIRE_API_H

/*
 * The public API. libtoolwire is built with -fvisibility=hidden: the shared
 * library exports exactly the functions marked TW_API, which are the
 * functions the installed headers declare (tests/tools/check_exports.sh).
 */
#if defined(__GNUC__) || defined(__clang__)
#define TW_API __attribute__((visibility("default")))
#else
#define TW_API
#endif

#endif
