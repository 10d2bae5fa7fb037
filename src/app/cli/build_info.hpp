#pragma once
// What this build of cctune is: the version (from CMake's project(), a compile definition)
// and the git revision, which a generated source defines at build time
// (cmake/CctuneGitSha.cmake), so that it follows commits without a reconfigure.

namespace cctune {

// The short git revision the binary was built from, or "unknown" outside a checkout.
const char* build_git_sha();

}  // namespace cctune
