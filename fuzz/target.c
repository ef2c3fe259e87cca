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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return TW_FZ_FN(data, size); }
