#pragma once
// Checks that may fail on some ranks only (a directory only rank 0 writes, memory on one
// node, an RDMA port one host lacks) are made collective: every rank runs its check, and
// if any failed, every rank throws the first failure, so no rank is left waiting in a
// collective and the message names the host and rank where it happened.
#include <unistd.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "collectives/rank_comm.hpp"
#include "core/error.hpp"

namespace cctune {

// `check` throws a cctune::Error on failure. Collective over `comm`: every rank calls it.
// Throws on every rank the lowest failing rank's error, of the same kind (usage,
// environment, runtime), marked agreed() with that rank's host and rank.
inline void agree_on_errors(RankComm& comm, const std::function<void()>& check) {
  enum Kind { usage, environment, runtime };
  nlohmann::json mine = nullptr;
  auto relay = [&](Kind kind, const Error& e) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    // An error that was itself agreed on keeps the site where it first happened.
    const ErrorSite site = e.site().value_or(ErrorSite{host, comm.rank(), -1});
    mine = {{"kind", kind}, {"what", e.what_only()}, {"fix", e.fix()}, {"host", site.host}, {"rank", site.rank},
            {"device", site.device}};
  };
  try {
    check();
  } catch (const UsageError& e) {
    relay(usage, e);
  } catch (const EnvironmentError& e) {
    relay(environment, e);
  } catch (const Error& e) {
    relay(runtime, e);
  }
  for (const auto& text : comm.allgather(mine.dump())) {
    const auto j = nlohmann::json::parse(text);
    if (j.is_null()) continue;
    const ErrorSite site{j.at("host").get<std::string>(), j.at("rank").get<int>(), j.at("device").get<int>()};
    auto raise = [&](auto error) {
      error.set_agreed_site(site);
      throw error;
    };
    const std::string what = j.at("what"), fix = j.at("fix");
    const int kind = j.at("kind");
    if (kind == usage) raise(UsageError(what, fix));
    if (kind == environment) raise(EnvironmentError(what, fix));
    raise(RuntimeFailure(what, fix));
  }
}

}  // namespace cctune
