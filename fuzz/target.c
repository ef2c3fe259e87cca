/*
 * One libFuzzer entry point; the build compiles it once per target with
 * -DTW_FZ_FN=tw_fz_<target> (fuzz/CMakeLists.txt, fuzz/build.sh).
 */
#include <stddef.h>
#include <stdint.h>

#include "invariants.h"

#ifndef TW_FZ_FN
#error "define TW_FZ_FN to one of the tw_fz_* functions of invariants.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* ASan records two frames of each allocation's and free's stack, not 30:
 * every check stays on, and each malloc and free (a decode makes them per
 * node and per buffer) unwinds two frames instead of thirty. A report names
 * the two innermost frames of the allocation and the free; replaying the
 * input (test_fuzz_regressions, or the target with
 * ASAN_OPTIONS=malloc_context_size=30, which overrides this) gives the whole
 * stacks. docs/fuzzing.md. */
const char *__asan_default_options(void)
{
    return "malloc_context_size=2";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return TW_FZ_FN(data, size);
}
