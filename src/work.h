/*
 * Internal: the work counter for tests, benchmarks and fuzz invariants (not
 * installed, not exported: the tests and fuzz targets link the library's
 * objects and include src/). The helpers that walk input bytes on behalf of
 * a decoder (the JSON locator and element cursor of the wire formats, the
 * substring search and the incremental JSON scanner of the text formats, the
 * call-id index) add the bytes or entries they step over to one counter per
 * thread. A decode whose count grows faster than its input has turned
 * super-linear: the tests assert count <= c * input length on inputs with
 * many calls.
 *
 * The counter never affects a result; it only counts.
 */
#ifndef TOOLWIRE_WORK_INT_H
#define TOOLWIRE_WORK_INT_H

#include <stdint.h>

extern _Thread_local uint64_t tw_work_units;

/* Count n units of work (bytes stepped over, entries compared). */
#define TW_WORK(n) (tw_work_units += (uint64_t)(n))

/* Units of work counted on the calling thread since the last reset. */
uint64_t tw_work_count(void);
/* Set the calling thread's counter to zero. */
void tw_work_reset(void);

#endif
