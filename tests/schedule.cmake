# How ctest schedules the tests (included by the top-level CMakeLists.txt after
# every test is defined).
#
# COST: ctest starts the tests of highest cost first, so the long ones do not
# start last and run alone at the end of a parallel run. A fresh build tree
# has no timing data of its own (Testing/Temporary/CTestCostData.txt), so
# these are the seconds each took under ASan+UBSan on a 2-core machine;
# tests not named here keep cost 0 and follow.
#
# LABELS node: the tests driven by node programs (npm client libraries, SDKs,
# claude-code-router, headless Chromium) against the toolwire program. Their
# time is node's, the same in every build; scripts/test.sh runs them once, in
# the ASan+UBSan build, where the program they drive is checked for memory
# errors and leaks as well (`ctest -LE node` leaves them out of the normal
# build's run). ctest without -L/-LE runs them as any other test.
set(TW_TEST_COSTS
  clients_sdks 152 test_fuzz_regressions 93 test_report_writers 57 test_linear 47
  interop_sdks 43 browser_reports 34 proxy_ccr 31 test_shard 30 test_secrets 28
  test_run_select 27 test_gemini 21 ci_action 20 test_exit_status 19 test_encode_gemini 18
  test_json_strict 14 test_secrets_names 14 test_mock_replay 10 test_mock_index 9
  test_one_pass 9 test_refproxy_hostile 8 test_mock_hostile 8 test_convert 8 serve_replay 8
  test_cli_messages 7 test_numbers 7)
list(LENGTH TW_TEST_COSTS tw_n)
math(EXPR tw_last "${tw_n} - 1")
foreach(i RANGE 0 ${tw_last} 2)
  math(EXPR j "${i} + 1")
  list(GET TW_TEST_COSTS ${i} tw_test)
  list(GET TW_TEST_COSTS ${j} tw_cost)
  if(TEST ${tw_test})
    set_tests_properties(${tw_test} PROPERTIES COST ${tw_cost})
  endif()
endforeach()
foreach(tw_test clients_sdks interop_sdks proxy_ccr browser_reports)
  if(TEST ${tw_test})
    set_tests_properties(${tw_test} PROPERTIES LABELS node)
  endif()
endforeach()

# LABELS source: the tests that read only the source tree (its text, its
# generated data, snippets they compile themselves), the same in every build;
# scripts/test.sh runs them once, in the normal build (`ctest -LE source` in
# the ASan+UBSan build).
set(TW_SOURCE_TESTS include_graph_self_test self_contained library_alloc_calls test_layout
  modules_documented clang_format source_file_sizes fuzz_dicts check_ids_compile mutants_apply)
foreach(tw_test ${TW_SOURCE_TESTS})
  if(TEST ${tw_test})
    set_tests_properties(${tw_test} PROPERTIES LABELS source)
  endif()
endforeach()
get_property(tw_all_tests DIRECTORY ${CMAKE_SOURCE_DIR} PROPERTY TESTS)
foreach(tw_test ${tw_all_tests})
  if(tw_test MATCHES "^data_")
    set_tests_properties(${tw_test} PROPERTIES LABELS source)
  endif()
endforeach()
