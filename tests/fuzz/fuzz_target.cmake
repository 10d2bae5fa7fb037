# cctune_add_fuzzer(NAME SOURCE fuzzer.cpp TARGETS lib... CORPUS dir [DICT file])
# A libFuzzer target built with clang directly (the project may be built with GCC, which
# has no libFuzzer) from the sources of the listed libraries, and a ctest that runs it for
# CCTUNE_FUZZ_SECONDS. Without clang the test is skipped (exit 77).
set(CCTUNE_FUZZ_SECONDS 60 CACHE STRING "How long the ctest fuzz runs last, in seconds")
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(CCTUNE_FUZZ_CXX ${CMAKE_CXX_COMPILER})
else()
  find_program(CCTUNE_FUZZ_CXX NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14)
endif()

function(cctune_add_fuzzer name)
  cmake_parse_arguments(F "" "SOURCE;CORPUS;DICT" "TARGETS;DEFINES;SOURCES" ${ARGN})
  if(NOT CCTUNE_FUZZ_CXX)
    add_test(NAME ${name}_fuzz COMMAND sh -c "echo 'SKIP: no clang++ with libFuzzer (apt-get install clang libclang-rt-14-dev)'; exit 77")
    set_tests_properties(${name}_fuzz PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77)
    return()
  endif()
  set(_all ${F_SOURCES})
  foreach(t ${F_TARGETS})
    get_target_property(_sources ${t} SOURCES)
    get_target_property(_dir ${t} SOURCE_DIR)
    list(TRANSFORM _sources PREPEND ${_dir}/)
    list(APPEND _all ${_sources})
  endforeach()
  set(_defines)
  foreach(d ${F_DEFINES})
    list(APPEND _defines -D${d})
  endforeach()
  set(_fuzzer ${CMAKE_CURRENT_BINARY_DIR}/${name}_fuzzer)
  # One object per source, each with the depfile clang writes, so a changed header rebuilds
  # exactly what includes it (no list of headers to keep in step); compiled through the
  # project's compiler launcher (ccache) when one is set.
  set(_flags -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
             -DFMT_HEADER_ONLY ${_defines} -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/src)
  set(_objects)
  set(_i 0)
  foreach(src ${F_SOURCE} ${_all})
    get_filename_component(_base ${src} NAME_WE)
    set(_obj ${CMAKE_CURRENT_BINARY_DIR}/${name}_objs/${_i}_${_base}.o)
    add_custom_command(OUTPUT ${_obj}
      COMMAND ${CMAKE_CXX_COMPILER_LAUNCHER} ${CCTUNE_FUZZ_CXX} ${_flags} -MMD -MF ${_obj}.d -c ${src} -o ${_obj}
      DEPENDS ${src} DEPFILE ${_obj}.d
      COMMENT "Compiling ${_base} for the ${name} fuzzer" VERBATIM)
    list(APPEND _objects ${_obj})
    math(EXPR _i "${_i} + 1")
  endforeach()
  add_custom_command(OUTPUT ${_fuzzer}
    COMMAND ${CCTUNE_FUZZ_CXX} -fsanitize=fuzzer,address,undefined ${_objects} -o ${_fuzzer}
    DEPENDS ${_objects}
    COMMENT "Linking the ${name} fuzzer with ${CCTUNE_FUZZ_CXX}" VERBATIM)
  add_custom_target(${name}_fuzzer_build ALL DEPENDS ${_fuzzer})
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
