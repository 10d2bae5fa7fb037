# cctune_add_fuzzer(NAME SOURCE fuzzer.cpp TARGETS lib... [SOURCES extra.cpp...] [DEFINES D=V...]
#                   CORPUS dir [DICT file])
# A libFuzzer executable and a ctest NAME_fuzz that runs it for CCTUNE_FUZZ_SECONDS.
#
# Fuzzers need clang's libFuzzer and every library they link compiled with
# -fsanitize=fuzzer-no-link,address,undefined, so they are plain add_executable targets of a
# build configured for it: the `fuzz` preset (CCTUNE_FUZZ=ON, clang++, build-fuzz/). A build
# with another compiler (the default and ci presets, GCC) configures that same project as a
# nested build in <build>/fuzz (ExternalProject, built every time the outer build runs, target
# cctune_fuzzers), and its ctest runs the nested build's fuzzers. Without clang the tests are
# skipped (exit 77).
set(CCTUNE_FUZZ_SECONDS 60 CACHE STRING "How long the ctest fuzz runs last, in seconds")

if(CCTUNE_FUZZ)
  if(NOT TARGET cctune_fuzzers)
    add_custom_target(cctune_fuzzers)
  endif()
  set(_cctune_fuzz_bin_root ${PROJECT_BINARY_DIR})
else()
  find_program(CCTUNE_FUZZ_CXX NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14)
  find_program(CCTUNE_FUZZ_CC NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
  set(_cctune_fuzz_bin_root ${PROJECT_BINARY_DIR}/fuzz)
  if(CCTUNE_FUZZ_CXX AND CCTUNE_FUZZ_CC AND NOT TARGET cctune_fuzz_build)
    include(ExternalProject)
    # The fuzz preset's settings (CMakePresets.json), in a folder of this build.
    ExternalProject_Add(cctune_fuzz_build
      SOURCE_DIR ${PROJECT_SOURCE_DIR}
      BINARY_DIR ${_cctune_fuzz_bin_root}
      CMAKE_ARGS -DCMAKE_CXX_COMPILER=${CCTUNE_FUZZ_CXX} -DCMAKE_C_COMPILER=${CCTUNE_FUZZ_CC}
                 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCTUNE_FUZZ=ON -DCCTUNE_WITH_CUDA=OFF
                 -DCCTUNE_FUZZ_SECONDS=${CCTUNE_FUZZ_SECONDS}
      BUILD_COMMAND ${CMAKE_COMMAND} --build ${_cctune_fuzz_bin_root} --target cctune_fuzzers
      INSTALL_COMMAND ""
      BUILD_ALWAYS ON
      USES_TERMINAL_BUILD ON)
  endif()
endif()

function(cctune_add_fuzzer name)
  cmake_parse_arguments(F "" "SOURCE;CORPUS;DICT" "TARGETS;DEFINES;SOURCES" ${ARGN})
  file(RELATIVE_PATH _rel ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR})
  set(_fuzzer ${_cctune_fuzz_bin_root}/${_rel}/${name}_fuzzer)
  if(CCTUNE_FUZZ)
    add_executable(${name}_fuzzer ${F_SOURCE} ${F_SOURCES})
    target_link_libraries(${name}_fuzzer PRIVATE ${F_TARGETS} fmt::fmt-header-only nlohmann_json::nlohmann_json)
    target_include_directories(${name}_fuzzer PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src)
    target_compile_definitions(${name}_fuzzer PRIVATE ${F_DEFINES})
    target_link_options(${name}_fuzzer PRIVATE -fsanitize=fuzzer)
    add_dependencies(cctune_fuzzers ${name}_fuzzer)
  elseif(NOT TARGET cctune_fuzz_build)
    add_test(NAME ${name}_fuzz COMMAND sh -c "echo 'SKIP: no clang++ with libFuzzer (apt-get install clang libclang-rt-14-dev)'; exit 77")
    set_tests_properties(${name}_fuzz PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77)
    return()
  endif()
  set(_dict "")
  if(F_DICT)
    set(_dict "-dict=${F_DICT}")
  endif()
  # New inputs go to the build tree; the seed corpus in the source tree is only read. A fixed
  # seed keeps a CI run reproducible: what it finds, a rerun here finds too.
  add_test(NAME ${name}_fuzz
    COMMAND sh -c "mkdir -p corpus_${name} && exec \"$0\" -seed=1 -max_total_time=${CCTUNE_FUZZ_SECONDS} -rss_limit_mb=2048 -max_len=65536 ${_dict} corpus_${name} \"$1\""
            ${_fuzzer} ${F_CORPUS}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  math(EXPR _timeout "${CCTUNE_FUZZ_SECONDS} + 300")
  set_tests_properties(${name}_fuzz PROPERTIES LABELS fuzz TIMEOUT ${_timeout})
endfunction()
