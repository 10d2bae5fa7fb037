// Every enum that travels as text: each value survives to_string and back, and an unknown
// name is refused (nullopt, or a UsageError naming the value and the valid ones).
#include <gtest/gtest.h>

#include "core/algo_proto.hpp"
#include "core/error_kind.hpp"
#include "core/results.hpp"
#include "core/stopping.hpp"
#include "support/thrown.hpp"

namespace cctune {
namespace {

TEST(AlgoProto, EveryValueRoundTrips) {
  for (Algorithm a : all_algorithms()) {
    EXPECT_EQ(parse_algorithm(to_string(a)), a);
    EXPECT_EQ(parse_algorithm_choice(to_string(a)), a);
    EXPECT_EQ(algorithm_from_index(static_cast<int>(a)), a);
  }
  for (Protocol p : all_protocols()) {
    EXPECT_EQ(parse_protocol(to_string(p)), p);
    EXPECT_EQ(parse_protocol_choice(to_string(p)), p);
    EXPECT_EQ(protocol_from_index(static_cast<int>(p)), p);
  }
}

TEST(AlgoProto, AutoIsNcclsOwnChoice) {
  EXPECT_EQ(to_string(std::optional<Algorithm>{}), "auto");
  EXPECT_EQ(to_string(std::optional<Protocol>{}), "auto");
  EXPECT_EQ(parse_algorithm_choice("auto"), std::nullopt);
  EXPECT_EQ(parse_protocol_choice("auto"), std::nullopt);
  // "auto" is no algorithm: the plugin's parser, which forces what it parses, refuses it.
  EXPECT_EQ(parse_algorithm("auto"), std::nullopt);
  EXPECT_EQ(algo_proto_name(Algorithm::NvlsTree, std::nullopt), "nvls_tree/auto");
}

TEST(AlgoProto, WireNamesAreNcclIndicesInOrder) {
  EXPECT_EQ(algorithm_name_list(), "tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat");
  EXPECT_EQ(protocol_name_list(), "ll, ll128, simple");
  EXPECT_EQ(static_cast<int>(Algorithm::Pat), 6);
  EXPECT_EQ(static_cast<int>(Protocol::Simple), 2);
}

TEST(AlgoProto, NcclSpellingsParseUnknownNamesDoNot) {
  EXPECT_EQ(parse_algorithm("NVLS_TREE"), Algorithm::NvlsTree);
  EXPECT_EQ(parse_protocol("Simple"), Protocol::Simple);
  EXPECT_EQ(parse_algorithm("butterfly"), std::nullopt);
  EXPECT_EQ(parse_protocol("ll64"), std::nullopt);
  EXPECT_EQ(parse_algorithm(""), std::nullopt);
  EXPECT_FALSE(algorithm_from_index(kAlgorithmCount));
  EXPECT_FALSE(protocol_from_index(-1));
  EXPECT_EQ(cctune::testing::thrown_description<UsageError>([] { parse_algorithm_choice("butterfly"); }),
            "unknown NCCL algorithm 'butterfly'. Fix: use one of auto, tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat");
  EXPECT_EQ(cctune::testing::thrown_description<UsageError>([] { parse_protocol_choice("ll64"); }), "unknown NCCL protocol 'll64'. Fix: use one of auto, ll, ll128, simple");
}

TEST(ErrorKind, EveryValueRoundTripsAndRaisesItsOwnType) {
  for (ErrorKind k : {ErrorKind::Usage, ErrorKind::Environment, ErrorKind::Failure}) {
    EXPECT_EQ(parse_error_kind(to_string(k)), k);
    try {
      throw_error(k, "what", "fix");
    } catch (const Error& e) {
      EXPECT_EQ(error_kind_of(e), k);
      EXPECT_EQ(e.fix(), "fix");
      EXPECT_FALSE(e.agreed());
    }
  }
  EXPECT_EQ(parse_error_kind("interrupted"), std::nullopt);
  EXPECT_EQ(error_kind_of(std::runtime_error("x")), ErrorKind::Failure);
  try {
    throw_error(ErrorKind::Environment, "no GPU", "", ErrorSite{"node7", 3, -1});
  } catch (const EnvironmentError& e) {
    ASSERT_TRUE(e.agreed());
    EXPECT_EQ(e.site()->host, "node7");
    EXPECT_EQ(e.site()->rank, 3);
  }
}

TEST(Statuses, EveryValueRoundTrips) {
  for (RunStatus s : {RunStatus::Ok, RunStatus::Failed, RunStatus::Interrupted}) EXPECT_EQ(parse_run_status(to_string(s)), s);
  for (MetaStatus s : {MetaStatus::Running, MetaStatus::Complete, MetaStatus::Interrupted, MetaStatus::Failed})
    EXPECT_EQ(parse_meta_status(to_string(s)), s);
  for (StopReason r : {StopReason::Noise, StopReason::Time, StopReason::Iterations, StopReason::Interrupted})
    EXPECT_EQ(parse_stop_reason(to_string(r)), r);
}

TEST(Statuses, UnknownNamesAreUsageErrorsListingTheValidOnes) {
  EXPECT_EQ(cctune::testing::thrown_description<UsageError>([] { parse_run_status("done"); }), "unknown run status 'done'. Fix: use one of ok, failed, interrupted");
  EXPECT_EQ(cctune::testing::thrown_description<UsageError>([] { parse_meta_status("Complete"); }),
            "unknown sweep status 'Complete'. Fix: use one of running, complete, interrupted, failed");
  EXPECT_EQ(cctune::testing::thrown_description<UsageError>([] { parse_stop_reason(""); }), "unknown stop reason ''. Fix: use one of noise, time, iterations, interrupted");
}

}  // namespace
}  // namespace cctune
