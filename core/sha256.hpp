#pragma once
// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: how results name the input file they
// were planned from, so a later step can tell whether it holds the same file.
#include <string>
#include <string_view>

namespace cctune {

std::string sha256_hex(std::string_view bytes);

}  // namespace cctune
