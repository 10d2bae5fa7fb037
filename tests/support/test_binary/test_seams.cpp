#include "test_binary/test_seams.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "app/cli/version_check.hpp"
#include "core/error.hpp"
#include "test_env.hpp"

namespace cctune::test_binary {
namespace {

void sleep_s(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

// CCTUNE_TEST_FAULT=kind:rank:point[:group]: the worker of NCCL rank `rank` hangs, aborts or
// exits 7 at the start of point `point` (in config group `group` only, when given).
struct Fault {
  std::string kind, group;
  int rank = 0;
  long point = 0;
};

Fault parse_fault(const std::string& text) {
  std::stringstream in(text);
  std::string kind, rank, point, group;
  const auto bad = [&] {
    return UsageError("CCTUNE_TEST_FAULT='" + text + "' is malformed",
                      "use kind:rank:point[:group] with kind hang, abort or exit, e.g. hang:1:3 or abort:0:2:pcie");
  };
  if (!std::getline(in, kind, ':') || !std::getline(in, rank, ':') || !std::getline(in, point, ':')) throw bad();
  std::getline(in, group);
  if (kind != "hang" && kind != "abort" && kind != "exit") throw bad();
  Fault f{kind, group};
  try {
    std::size_t used = 0;
    f.rank = std::stoi(rank, &used);
    if (used != rank.size()) throw bad();
    f.point = std::stol(point, &used);
    if (used != point.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (f.rank < 0 || f.point < 0) throw bad();
  return f;
}

runtime::BeforePoint fault_at(const Fault& f) {
  return [f](const runtime::WorkerSpec& spec, long point) {
    if (spec.rank != f.rank || point != f.point || (!f.group.empty() && spec.group != f.group)) return;
    std::fprintf(stderr, "cctune worker: test fault '%s' at point %ld (CCTUNE_TEST_FAULT)\n", f.kind.c_str(), point);
    std::fflush(stderr);
    if (f.kind == "abort") std::abort();
    if (f.kind == "exit") ::_exit(7);
    for (;;) ::pause();  // hang: silent until killed
  };
}

// CCTUNE_TEST_PROBE_STALL=RANK:SECONDS: that rank sleeps before it answers as a responder.
std::function<void(int, const std::function<bool()>&)> probe_stall(const std::string& text) {
  const auto colon = text.find(':');
  int stalled = -1;
  double seconds = 0;
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no colon");
    stalled = std::stoi(text.substr(0, colon));
    seconds = std::stod(text.substr(colon + 1));
  } catch (const std::exception&) {
    throw UsageError("CCTUNE_TEST_PROBE_STALL='" + text + "' is not RANK:SECONDS", "unset it (it is for tests)");
  }
  // In slices, as a real wait for a peer is: a stop request ends it.
  return [stalled, seconds](int rank, const std::function<bool()>& stop_requested) {
    if (rank != stalled || seconds <= 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until && !(stop_requested && stop_requested()))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  };
}

// CCTUNE_TEST_FAKE_VERSION="RANK:key=value;...": rank RANK reports that version.
app::AdjustVersions fake_versions(const std::string& spec) {
  std::vector<std::tuple<int, std::string, std::string>> fakes;
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ';');) {
    const auto colon = item.find(':');
    const auto eq = item.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || eq == std::string::npos)
      throw UsageError("CCTUNE_TEST_FAKE_VERSION entry '" + item + "' is not RANK:KEY=VALUE",
                       "use e.g. CCTUNE_TEST_FAKE_VERSION='1:nccl=2.99.0' (tests only)");
    fakes.emplace_back(std::atoi(item.substr(0, colon).c_str()), item.substr(colon + 1, eq - colon - 1), item.substr(eq + 1));
  }
  return [fakes](int rank, app::Versions& v) {
    for (const auto& [r, key, value] : fakes)
      if (r == rank) v[key] = value;
  };
}

}  // namespace

app::Seams seams_from_environment() {
  app::Seams s;
  if (const auto f = test_env::text("CCTUNE_TEST_FAULT"); !f.empty()) s.worker_before_point = fault_at(parse_fault(f));
  if (const auto slow = test_env::parse_slow_rank(test_env::text("CCTUNE_TEST_SLOW_RANK")); slow.rank >= 0)
    s.mpi_before_launch = [slow](int rank) {
      if (slow.applies_to(rank)) sleep_s(slow.delay_us * 1e-6);
    };
  if (const auto p = test_env::text("CCTUNE_TEST_PROBE_STALL"); !p.empty()) s.probe_before_respond = probe_stall(p);
  if (const auto v = test_env::text("CCTUNE_TEST_FAKE_VERSION"); !v.empty()) s.adjust_versions = fake_versions(v);
  return s;
}

}  // namespace cctune::test_binary
