# The regression replay test (tests/fuzz/test_fuzz_regressions.c) runs every input
# under fuzz/regressions/ and corpus/ through the fuzz targets' invariant
# checks, in the normal and the sanitizer test builds. Included by the
# top-level CMakeLists.txt after the tests are defined.
if(TARGET test_fuzz_regressions)
  include(${CMAKE_SOURCE_DIR}/fuzz/detect.cmake)
  target_sources(test_fuzz_regressions PRIVATE ${CMAKE_SOURCE_DIR}/fuzz/invariants.c
                 ${TW_FZ_EXTRA_SOURCES})
  # src/: json_marks.h, the arena the neutral round trip reads its tree into
  target_include_directories(test_fuzz_regressions PRIVATE ${CMAKE_SOURCE_DIR}/fuzz
                             ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(test_fuzz_regressions PRIVATE ${TW_FZ_DEFS})
  target_link_libraries(test_fuzz_regressions PRIVATE ${TW_FZ_LIBS})
endif()
