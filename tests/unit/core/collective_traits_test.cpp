// The descriptor table (core/collective_traits.hpp): every collective has a complete entry,
// and the counts and bus factors derived from it equal the per-collective formulas cctune
// used before the table (written out again here, independently, as the oracle).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/collective.hpp"
#include "core/collective_traits.hpp"
#include "core/results.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"

using namespace cctune;

namespace {

struct Formula {
  std::uint64_t param, send, recv, bw_elems;
};

// The switch collective_bytes had before the table.
Formula previous_counts(Collective c, std::uint64_t count, std::uint64_t n) {
  switch (c) {
    case Collective::AllReduce:
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::SendRecv: return {count, count, count, count};
    case Collective::AllGather:
    case Collective::Gather: return {count / n, count / n, count / n * n, count / n * n};
    case Collective::ReduceScatter:
    case Collective::Scatter: return {count / n, count / n * n, count / n, count / n * n};
    case Collective::AllToAll: return {count / n, count / n * n, count / n * n, count / n * n};
  }
  return {};
}

double previous_bus_factor(Collective c, double n) {
  if (c == Collective::AllReduce) return 2.0 * (n - 1) / n;
  if (c == Collective::Broadcast || c == Collective::Reduce || c == Collective::SendRecv) return 1.0;
  return (n - 1) / n;
}

}  // namespace

TEST(CollectiveTraits, EveryCollectiveHasACompleteEntry) {
  std::set<std::string> names, calls;
  for (Collective c : all_collectives()) {
    const CollectiveTraits& t = traits(c);
    EXPECT_EQ(t.collective, c);
    EXPECT_FALSE(t.name.empty());
    EXPECT_EQ(std::string(t.name), to_string(c));
    EXPECT_EQ(parse_collective(t.name), c);
    EXPECT_EQ(t.nccl_call.rfind("nccl", 0), 0u) << t.name;
    EXPECT_EQ(t.mpi_call.rfind("MPI_", 0), 0u) << t.name;
    EXPECT_TRUE(names.insert(std::string(t.name)).second) << "name twice: " << t.name;
    EXPECT_TRUE(calls.insert(std::string(t.nccl_call)).second) << "NCCL call twice: " << t.nccl_call;
    // Something runs it on NCCL: a call that always exists, or a grouped composition.
    EXPECT_TRUE(!t.native_optional || t.grouped) << t.name << ": an optional native call needs a fallback";
    // The tuner is asked only about NCCL's collective calls, never about the p2p path.
    EXPECT_EQ(is_tunable(c), !t.grouped) << t.name;
  }
  EXPECT_EQ(names.size(), 9u);
}

TEST(CollectiveTraits, PropertiesAreTheKnownOnes) {
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::Reduce}) EXPECT_TRUE(is_reduction(c));
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::Gather, Collective::Scatter}) EXPECT_TRUE(is_rooted(c));
  EXPECT_FALSE(is_rooted(Collective::AllToAll));
  EXPECT_FALSE(is_reduction(Collective::Gather));
  std::set<Collective> two;
  for (Collective c : all_collectives())
    if (has_two_impls(c)) two.insert(c);
  EXPECT_EQ(two, (std::set<Collective>{Collective::AllToAll, Collective::Gather, Collective::Scatter}));
  EXPECT_FALSE(traits(Collective::AllToAll).nccl_in_place);
  EXPECT_FALSE(traits(Collective::SendRecv).nccl_in_place);
  EXPECT_TRUE(traits(Collective::Gather).nccl_in_place);
  EXPECT_EQ(traits(Collective::Scatter).nccl_call, "ncclScatter");
  EXPECT_EQ(traits(Collective::ReduceScatter).mpi_call, "MPI_Reduce_scatter_block");
}

TEST(CollectiveTraits, CountsAndBusFactorsEqualThePreviousFormulas) {
  for (int nranks : {1, 2, 3, 7, 8, 64, 1000})
    for (Collective c : all_collectives())
      for (std::uint64_t bytes : {0ull, 7ull, 1000ull, 4096ull, 1ull << 30, (1ull << 30) + 12}) {
        const auto b = collective_bytes(c, bytes, DType::Float32, nranks);
        const Formula f = previous_counts(c, bytes / 4, static_cast<std::uint64_t>(nranks));
        SCOPED_TRACE(to_string(c) + " nranks " + std::to_string(nranks) + " bytes " + std::to_string(bytes));
        EXPECT_EQ(b.param_count, f.param);
        EXPECT_EQ(b.send_count, f.send);
        EXPECT_EQ(b.recv_count, f.recv);
        EXPECT_EQ(b.bw_bytes, f.bw_elems * 4);
        EXPECT_EQ(b.size_bytes, std::max(f.send, f.recv) * 4);
        EXPECT_DOUBLE_EQ(bus_factor(c, nranks), previous_bus_factor(c, nranks));
        const bool split = c == Collective::AllGather || c == Collective::ReduceScatter || c == Collective::AllToAll ||
                           c == Collective::Gather || c == Collective::Scatter;
        EXPECT_EQ(request_granule(c, DType::Float32, nranks), 4u * (split ? static_cast<std::uint64_t>(nranks) : 1u));
      }
}

TEST(CollectiveTraits, ProfileNamesAreTheTunableOnes) {
  // The tuner plugin's view (tuner/profile) reads the same table: five steerable collectives.
  int tunable = 0;
  for (Collective c : all_collectives()) tunable += is_tunable(c) ? 1 : 0;
  EXPECT_EQ(tunable, 5);
  EXPECT_EQ(collective_named("gather"), Collective::Gather);
  EXPECT_EQ(collective_named("Gather"), std::nullopt);  // the table holds the canonical spelling only
}

TEST(P2pImpl, ChoicesParseAndPrint) {
  for (auto c : {P2pImplChoice::Native, P2pImplChoice::Grouped, P2pImplChoice::Both})
    EXPECT_EQ(parse_p2p_impl_choice(to_string_view(c)), c);
  EXPECT_EQ(parse_p2p_impl_choice("auto"), std::nullopt);
  EXPECT_EQ(parse_p2p_impl_choice("Native"), std::nullopt);
  EXPECT_EQ(parse_p2p_impl_choice(""), std::nullopt);
  EXPECT_EQ(parse_p2p_impl("native"), P2pImpl::Native);
  EXPECT_EQ(parse_p2p_impl("both"), std::nullopt);  // a point ran one implementation
}

TEST(P2pImpl, PointFieldRoundTripsAndIsAbsentElsewhere) {
  PointResult p;
  p.collective = Collective::Gather;
  p.root = 0;
  p.status = PointStatus::Skipped;
  for (P2pImpl impl : {P2pImpl::Native, P2pImpl::Grouped}) {
    p.impl = impl;
    const nlohmann::json j = p;
    EXPECT_EQ(j.at("impl"), std::string(to_string_view(impl)));
    EXPECT_EQ(j.get<PointResult>().impl, impl);
  }
  p.collective = Collective::AllReduce;
  p.impl.reset();
  EXPECT_FALSE(nlohmann::json(p).contains("impl"));
}

TEST(P2pImpl, ReadingRefusesABadImplAndFillsOlderNcclFiles) {
  nlohmann::json point = {{"collective", "alltoall"}, {"dtype", "float32"}, {"size_bytes", 64}, {"status", "skipped"}};
  point["impl"] = "fast";
  EXPECT_THROW(point.get<PointResult>(), UsageError);
  point["impl"] = "native";
  point["collective"] = "allreduce";  // only alltoall, gather and scatter have two
  EXPECT_THROW(point.get<PointResult>(), UsageError);
  point.erase("impl");
  point["collective"] = "scatter";
  // A file written before the field: NCCL ran grouped send/recv then; MPI has neither.
  for (const std::string backend : {"nccl", "mpi"}) {
    const nlohmann::json run = {{"backend", backend}, {"nranks", 2}, {"points", {point}}};
    const auto r = run.get<RunResult>();
    EXPECT_EQ(r.points.at(0).impl, backend == "nccl" ? std::optional(P2pImpl::Grouped) : std::nullopt) << backend;
  }
}
