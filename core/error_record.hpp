#pragma once
// The one encoding of an error that crosses a pipe (worker -> supervisor), a rank (the
// supervisors' agreements, the topology gather) or a file: its kind, message, fix and, when
// known, where it happened. The receiver raises the same kind again, so exit codes survive
// every hop. JSON: {"kind", "message", "fix"} plus {"host", "rank", "device"} with a site.
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/error_kind.hpp"

namespace cctune {

struct ErrorRecord {
  ErrorKind kind = ErrorKind::Failure;
  std::string message;
  std::string fix;
  std::optional<ErrorSite> site;
};

// A cctune::Error keeps its kind, text, fix and site; any other exception is a Failure
// with its what().
ErrorRecord record_of(const std::exception& e);

nlohmann::json to_json(const ErrorRecord& r);
// The record `j` encodes; nullopt when it is none (not an object, or "message" missing or not
// text). It comes from another process: an unknown kind reads as a Failure, missing fix and
// site as empty, and nothing in it throws.
std::optional<ErrorRecord> error_record_from_json(const nlohmann::json& j) noexcept;

// Throws the record as the error of its kind (UsageError, EnvironmentError, RuntimeFailure),
// marked agreed at its site when it has one.
[[noreturn]] void rethrow(const ErrorRecord& r);

}  // namespace cctune
