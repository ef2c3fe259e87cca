/* The per-thread work counter (work.h). */
#include "work.h"

_Thread_local uint64_t tw_work_units;

uint64_t tw_work_count(void)
{
    return tw_work_units;
}

void tw_work_reset(void)
{
    tw_work_units = 0;
}
