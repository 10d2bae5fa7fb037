#pragma once
// Checks that may fail on some ranks only (a directory only rank 0 writes, memory on one
// node, an RDMA port one host lacks) are made collective: every rank runs its check, and
// if any failed, every rank throws the first failure, so no rank is left waiting in a
// collective and the message names the host and rank where it happened.
#include <unistd.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "comm/rank_comm.hpp"
#include "core/error.hpp"
#include "core/error_kind.hpp"
#include "core/error_record.hpp"
#include "core/text.hpp"

namespace cctune {

// `check` throws a cctune::Error on failure. Collective over `comm`: every rank calls it.
// Throws on every rank the lowest failing rank's error, of the same kind (usage,
// environment, runtime), marked agreed() with that rank's host and rank.
inline void agree_on_errors(RankComm& comm, const std::function<void()>& check) {
  nlohmann::json mine = nullptr;
  try {
    check();
  } catch (const Error& e) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    ErrorRecord record = record_of(e);
    // An error that was itself agreed on keeps the site where it first happened.
    if (!record.site) record.site = ErrorSite{host, comm.rank(), -1};
    mine = to_json(record);
  }
  // dump_json: an error's text may quote argv, paths or worker output in any bytes.
  for (const auto& line : comm.allgather(text::dump_json(mine))) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_null()) continue;
    rethrow(error_record_from_json(j).value_or(ErrorRecord{ErrorKind::Failure, "a rank failed and its error could not be read", {}, {}}));
  }
}

}  // namespace cctune
