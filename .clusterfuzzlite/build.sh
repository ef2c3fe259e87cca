#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz entry point: $CC, $CFLAGS, $LIB_FUZZING_ENGINE
# and $OUT are set by the base-builder image; cJSON's Debian source is at
# $TOOLWIRE_FUZZ_CJSON_DIR (see Dockerfile).
cd "$SRC/toolwire"
fuzz/build.sh
