/*
 * A work counter for tests, benchmarks and fuzz invariants. The helpers that
 * walk input bytes on behalf of a decoder (the JSON locator and element
 * cursor of the wire formats, the substring search and the incremental JSON
 * scanner of the text formats, the call-id index) add the bytes or entries
 * they step over to one counter per thread. A decode whose count grows
 * faster than its input has turned super-linear: the tests assert
 * count <= c * input length on inputs with many calls.
 *
 * The counter never affects a result; it only counts.
 */
#ifndef TOOLWIRE_WORK_H
#define TOOLWIRE_WORK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Units of work counted on the calling thread since the last reset. */
uint64_t tw_work_count(void);
/* Set the calling thread's counter to zero. */
void tw_work_reset(void);

#ifdef __cplusplus
}
#endif
#endif
