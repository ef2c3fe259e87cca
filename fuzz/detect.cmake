# Which optional modules exist yet: the sse, fixture and import targets are
# built once the code they drive is in the tree, json_diff when jansson is
# installed (scripts/deps.sh installs it). Sets TW_FZ_DEFS (compile
# definitions for fuzz/invariants.c), TW_FZ_EXTRA_SOURCES and TW_FZ_LIBS.
function(tw_fz_defines_symbol out glob regex)
  file(GLOB files CONFIGURE_DEPENDS ${glob})
  set(found OFF)
  foreach(f ${files})
    file(READ ${f} text)
    if(text MATCHES "${regex}")
      set(found ON)
      break()
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

set(TW_FZ_DEFS "")
set(TW_FZ_EXTRA_SOURCES "")
set(TW_FZ_OPTIONAL_TARGETS "")
set(TW_FZ_LIBS "")
# the request readers and encoders are always there
list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_request.c)
# the redactor over stream pieces (harness/redact/redact.h) is always there
list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_redact.c)
# the report reader, gate and comparison (harness/report/report.h) are always there
list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_report.c)
tw_fz_defines_symbol(TW_FZ_HAVE_SSE "${CMAKE_SOURCE_DIR}/src/*.c"
  "tw_status[ \t\n]+tw_sse_init[ \t\n]*\\(")
tw_fz_defines_symbol(TW_FZ_HAVE_FIXTURE "${CMAKE_SOURCE_DIR}/harness/*/*.c"
  "tw_status[ \t\n]+tw_fixture_parse[ \t\n]*\\(")
tw_fz_defines_symbol(TW_FZ_HAVE_IMPORT "${CMAKE_SOURCE_DIR}/harness/*/*.c"
  "tw_status[ \t\n]+tw_import_mem_to_buf[ \t\n]*\\(")
if(TW_FZ_HAVE_SSE)
  list(APPEND TW_FZ_DEFS TW_FZ_HAVE_SSE)
  list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_sse.c)
  list(APPEND TW_FZ_OPTIONAL_TARGETS sse)
endif()
if(TW_FZ_HAVE_FIXTURE)
  list(APPEND TW_FZ_DEFS TW_FZ_HAVE_FIXTURE)
  list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_fixture.c)
  list(APPEND TW_FZ_OPTIONAL_TARGETS fixture)
endif()
if(TW_FZ_HAVE_IMPORT)
  list(APPEND TW_FZ_DEFS TW_FZ_HAVE_IMPORT)
  list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_import.c)
  list(APPEND TW_FZ_OPTIONAL_TARGETS import)
endif()
pkg_check_modules(JANSSON IMPORTED_TARGET jansson)
if(JANSSON_FOUND)
  list(APPEND TW_FZ_DEFS TW_FZ_HAVE_JSON_DIFF)
  list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_json_diff.c)
  list(APPEND TW_FZ_OPTIONAL_TARGETS json_diff)
  list(APPEND TW_FZ_LIBS PkgConfig::JANSSON)
else()
  message(WARNING "fuzz: jansson not found (scripts/deps.sh installs libjansson-dev); "
                  "no json_diff target")
endif()
