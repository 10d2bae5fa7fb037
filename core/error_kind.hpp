#pragma once
// The kind of a cctune::Error where it crosses a process or rank boundary (worker messages,
// the supervisors' agreement, agree_on_errors): the C++ type does not travel, so the kind
// goes as text and the receiver raises the same kind again.
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cctune {

// Usage: UsageError; Environment: EnvironmentError; Failure: anything else.
enum class ErrorKind { Usage, Environment, Failure };

std::string to_string(ErrorKind k);  // "usage" | "environment" | "failure"
// nullopt for anything else.
std::optional<ErrorKind> parse_error_kind(std::string_view s) noexcept;
ErrorKind error_kind_of(const std::exception& e) noexcept;
// Throws UsageError, EnvironmentError or RuntimeFailure; with `agreed_site`, marked agreed
// at that site (Error::set_agreed_site).
[[noreturn]] void throw_error(ErrorKind kind, const std::string& what, const std::string& fix,
                              const std::optional<ErrorSite>& agreed_site = std::nullopt);

}  // namespace cctune
