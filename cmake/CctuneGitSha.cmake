# Run at build time (cmake -P) by the cctune_git_sha target in src/app/CMakeLists.txt:
# writes OUTPUT, a source defining cctune::build_git_sha(), from `git rev-parse HEAD` of
# SOURCE_DIR ("unknown" outside a git checkout). The file is rewritten only when the text
# changes, so a build after no commit recompiles nothing.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT sha MATCHES "^[0-9a-f]+$")
  set(sha "unknown")
endif()
set(text "// Generated at build time by cmake/CctuneGitSha.cmake; do not edit.\n#include \"app/cli/build_info.hpp\"\n\nnamespace cctune {\nconst char* build_git_sha() { return \"${sha}\"; }\n}  // namespace cctune\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
