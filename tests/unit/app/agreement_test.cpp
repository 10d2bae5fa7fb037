#include "comm/rank_agreement.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include "support/thread_comm.hpp"

namespace cctune {
namespace {

std::string this_host() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

// What each rank caught: kind, message as main() prints it, agreed flag.
struct Caught {
  std::string kind, line;
  bool agreed = false;
};

std::vector<Caught> run_agreement(int n, const std::function<void(int rank)>& check) {
  std::vector<Caught> caught(static_cast<std::size_t>(n));
  testing::run_ranks(n, [&](RankComm& comm) {
    auto& c = caught[static_cast<std::size_t>(comm.rank())];
    // The caller's site is always "rank 0 of host 'caller'": an agreed error must ignore it.
    const ErrorSite caller{"caller", 0, -1};
    try {
      agree_on_errors(comm, [&] { check(comm.rank()); });
      c.kind = "none";
    } catch (const UsageError& e) {
      c = {"usage", e.describe(caller), e.agreed()};
    } catch (const EnvironmentError& e) {
      c = {"environment", e.describe(caller), e.agreed()};
    } catch (const RuntimeFailure& e) {
      c = {"runtime", e.describe(caller), e.agreed()};
    }
  });
  return caught;
}

TEST(Agreement, NoFailureNoThrow) {
  for (const auto& c : run_agreement(3, [](int) {})) EXPECT_EQ(c.kind, "none");
}

TEST(Agreement, OneRanksFailureReachesEveryRankWithItsOwnSiteOnce) {
  const auto caught = run_agreement(4, [](int rank) {
    if (rank == 2) throw EnvironmentError("no RDMA port", "use --probe tcp");
  });
  const std::string want = "no RDMA port (on host " + this_host() + ", rank 2). Fix: use --probe tcp";
  for (const auto& c : caught) {
    EXPECT_EQ(c.kind, "environment");
    EXPECT_EQ(c.line, want);
    EXPECT_TRUE(c.agreed);
  }
}

TEST(Agreement, LowestFailingRankWinsAndKindIsKept) {
  const auto caught = run_agreement(3, [](int rank) {
    if (rank == 1) throw RuntimeFailure("worker died");
    if (rank == 2) throw UsageError("bad flag");
  });
  for (const auto& c : caught) {
    EXPECT_EQ(c.kind, "runtime");
    EXPECT_EQ(c.line, "worker died (on host " + this_host() + ", rank 1)");
  }
}

TEST(Agreement, NestedAgreementKeepsTheFirstSite) {
  std::vector<std::string> lines(3);
  testing::run_ranks(3, [&](RankComm& comm) {
    try {
      agree_on_errors(comm, [&] {
        agree_on_errors(comm, [&] {
          if (comm.rank() == 1) throw UsageError("odd rank out");
        });
      });
    } catch (const UsageError& e) {
      lines[static_cast<std::size_t>(comm.rank())] = e.describe();
    }
  });
  for (const auto& l : lines) EXPECT_EQ(l, "odd rank out (on host " + this_host() + ", rank 1)");
}

TEST(Agreement, UnagreedErrorUsesTheCallersSite) {
  const UsageError e("bad", "fix it");
  EXPECT_FALSE(e.agreed());
  EXPECT_EQ(e.describe({"node7", 3, -1}), "bad (on host node7, rank 3). Fix: fix it");
}

}  // namespace
}  // namespace cctune
