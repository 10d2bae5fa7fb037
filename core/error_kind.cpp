#include "core/error_kind.hpp"

#include "core/enum_names.hpp"

namespace cctune {
namespace {

constexpr NameTable<ErrorKind, 3> kind_names{{
    {ErrorKind::Usage, "usage"}, {ErrorKind::Environment, "environment"}, {ErrorKind::Failure, "failure"}}};

template <class E>
[[noreturn]] void raise(E error, const std::optional<ErrorSite>& site) {
  if (site) error.set_agreed_site(*site);
  throw error;
}

}  // namespace

std::string to_string(ErrorKind k) { return name_of(kind_names, k); }

std::optional<ErrorKind> parse_error_kind(std::string_view s) noexcept { return find_named(kind_names, s); }

ErrorKind error_kind_of(const std::exception& e) noexcept {
  if (dynamic_cast<const UsageError*>(&e)) return ErrorKind::Usage;
  if (dynamic_cast<const EnvironmentError*>(&e)) return ErrorKind::Environment;
  return ErrorKind::Failure;
}

void throw_error(ErrorKind kind, const std::string& what, const std::string& fix, const std::optional<ErrorSite>& agreed_site) {
  switch (kind) {
    case ErrorKind::Usage: raise(UsageError(what, fix), agreed_site);
    case ErrorKind::Environment: raise(EnvironmentError(what, fix), agreed_site);
    case ErrorKind::Failure: break;
  }
  raise(RuntimeFailure(what, fix), agreed_site);
}

}  // namespace cctune
