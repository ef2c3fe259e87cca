# The fuzz targets of the table of formats (src/format_table.h) and which
# optional modules exist yet: the sse, fixture and import targets are built
# once the code they drive is in the tree, json_diff when jansson is
# installed (scripts/deps.sh installs it). Sets TW_FZ_TABLE_TARGETS (always
# built), TW_FZ_OPTIONAL_TARGETS, TW_FZ_DEFS (compile definitions for
# fuzz/invariants.c), TW_FZ_EXTRA_SOURCES and TW_FZ_LIBS.
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
tw_fz_defines_symbol(TW_FZ_HAVE_SSE "${CMAKE_SOURCE_DIR}/src/*.c"
  "tw_status[ \t\n]+tw_sse_init[ \t\n]*\\(")
tw_fz_defines_symbol(TW_FZ_HAVE_FIXTURE "${CMAKE_SOURCE_DIR}/harness/*/*.c"
  "tw_status[ \t\n]+tw_fixture_parse[ \t\n]*\\(")
tw_fz_defines_symbol(TW_FZ_HAVE_IMPORT "${CMAKE_SOURCE_DIR}/harness/*/*.c"
  "tw_status[ \t\n]+tw_import_mem_to_buf[ \t\n]*\\(")
pkg_check_modules(JANSSON IMPORTED_TARGET jansson)
set(TW_FZ_HAVE_JSON_DIFF ${JANSSON_FOUND})
set(TW_FZ_ALWAYS ON)
if(JANSSON_FOUND)
  list(APPEND TW_FZ_LIBS PkgConfig::JANSSON)
else()
  message(WARNING "fuzz: jansson not found (scripts/deps.sh installs libjansson-dev); "
                  "no json_diff target")
endif()

# The targets of the table of formats (fuzz/table.cmake reads it): the
# decoders' always, then the others whose condition holds; a target with a
# fuzz/inv_<target>.c compiles it.
include(${CMAKE_SOURCE_DIR}/fuzz/table.cmake)
tw_fz_table_rows(${CMAKE_SOURCE_DIR}/src/format_table.h tw_fz_rows)
set(TW_FZ_TABLE_TARGETS "")
foreach(row ${tw_fz_rows})
  string(REPLACE ":" ";" row "${row}")
  list(GET row 0 t)
  list(GET row 1 cond)
  set(cond TW_FZ_${cond})
  if(${cond})
    if(NOT cond STREQUAL "TW_FZ_ALWAYS")
      list(APPEND TW_FZ_DEFS ${cond})
      list(APPEND TW_FZ_OPTIONAL_TARGETS ${t})
    else()
      list(APPEND TW_FZ_TABLE_TARGETS ${t})
    endif()
    if(EXISTS ${CMAKE_SOURCE_DIR}/fuzz/inv_${t}.c)
      list(APPEND TW_FZ_EXTRA_SOURCES ${CMAKE_SOURCE_DIR}/fuzz/inv_${t}.c)
    endif()
  endif()
endforeach()
if(NOT TW_FZ_TABLE_TARGETS)
  message(FATAL_ERROR "fuzz: no target read from src/format_table.h")
endif()
