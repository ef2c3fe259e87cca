/* Internal: the per-thread work counter behind include/toolwire/work.h. */
#ifndef TOOLWIRE_WORK_INT_H
#define TOOLWIRE_WORK_INT_H

#include <stdint.h>

#include "toolwire/work.h"

extern _Thread_local uint64_t tw_work_units;

/* Count n units of work (bytes stepped over, entries compared). */
#define TW_WORK(n) (tw_work_units += (uint64_t)(n))

#endif
