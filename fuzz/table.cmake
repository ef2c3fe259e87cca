# The fuzz targets of the table of formats (src/format_table.h), as
# "target:CONDITION" items: every decoder's (the D rows' last column,
# "(target, MODE[, target, MODE])"), CONDITION ALWAYS, then the others (the
# T rows of TW_FUZZ_OTHER_TARGETS) with theirs. fuzz/detect.cmake includes
# it; `cmake -DTW_FZ_TABLE=FILE -P fuzz/table.cmake` prints the targets of
# FILE one a line, "target CONDITION" (tests/lib/test_format_table.c compares
# them with the table the C code sees, as fuzz/build.sh --list).
function(tw_fz_table_rows file out)
  file(READ ${file} text)
  string(REPLACE "\\" "" text "${text}") # the macros' line ends
  string(REGEX MATCHALL "\n *[DT]\\([^\n]*" rows "${text}")
  set(dec "")
  set(other "")
  foreach(row ${rows})
    if(row MATCHES "^\n *D\\([^,]*, \"[^\"]*\", [A-Z]+, \\(([^)]*)\\)\\)")
      string(REPLACE ", " ";" cols "${CMAKE_MATCH_1}")
      set(i 0)
      foreach(c ${cols})
        math(EXPR odd "${i} % 2")
        if(odd EQUAL 0)
          list(APPEND dec "${c}:ALWAYS")
        endif()
        math(EXPR i "${i} + 1")
      endforeach()
    elseif(row MATCHES "^\n *T\\(([a-z0-9_]+), ([A-Z_]+)\\)")
      list(APPEND other "${CMAKE_MATCH_1}:${CMAKE_MATCH_2}")
    endif()
  endforeach()
  if(NOT dec)
    message(FATAL_ERROR "fuzz: no decoder target read from ${file}")
  endif()
  set(${out} ${dec} ${other} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT TW_FZ_TABLE)
    get_filename_component(TW_FZ_TABLE ${CMAKE_CURRENT_LIST_DIR}/../src/format_table.h ABSOLUTE)
  endif()
  tw_fz_table_rows(${TW_FZ_TABLE} rows)
  foreach(row ${rows})
    string(REPLACE ":" " " row "${row}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${row}")
  endforeach()
endif()
