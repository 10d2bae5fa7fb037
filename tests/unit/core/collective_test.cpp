#include <gtest/gtest.h>

#include "core/collective.hpp"
#include "core/error.hpp"

using namespace cctune;

TEST(CollectiveBytes, AllReduceKeepsTheWholeBuffer) {
  const auto b = collective_bytes(Collective::AllReduce, 1ull << 30, DType::Float32, 8);
  EXPECT_EQ(b.param_count, 268435456u);
  EXPECT_EQ(b.size_bytes, 1ull << 30);
  EXPECT_EQ(b.bw_bytes, 1ull << 30);
}

TEST(CollectiveBytes, AllGatherSplitsAcrossRanksAndRoundsDown) {
  const auto b = collective_bytes(Collective::AllGather, 1000, DType::Float32, 8);
  EXPECT_EQ(b.param_count, 31u);  // 250 elements / 8 ranks
  EXPECT_EQ(b.send_count, 31u);
  EXPECT_EQ(b.recv_count, 248u);
  EXPECT_EQ(b.size_bytes, 992u);
  EXPECT_EQ(b.bw_bytes, 992u);
}

TEST(CollectiveBytes, ReduceScatterMirrorsAllGather) {
  const auto b = collective_bytes(Collective::ReduceScatter, 1000, DType::Float32, 8);
  EXPECT_EQ(b.param_count, 31u);
  EXPECT_EQ(b.send_count, 248u);
  EXPECT_EQ(b.recv_count, 31u);
  EXPECT_EQ(b.size_bytes, 992u);
}

TEST(CollectiveBytes, AllToAllAndRootedOnes) {
  const auto a = collective_bytes(Collective::AllToAll, 4096, DType::Float64, 4);
  EXPECT_EQ(a.param_count, 128u);
  EXPECT_EQ(a.send_count, 512u);
  EXPECT_EQ(a.recv_count, 512u);
  EXPECT_EQ(a.bw_bytes, 4096u);
  for (auto c : {Collective::Broadcast, Collective::Reduce, Collective::SendRecv}) {
    const auto b = collective_bytes(c, 4096, DType::Float16, 4);
    EXPECT_EQ(b.param_count, 2048u);
    EXPECT_EQ(b.bw_bytes, 4096u);
  }
}

TEST(CollectiveBytes, GatherAndScatterSplitLikeAllGatherAndReduceScatter) {
  // nccl-tests gather.cu/scatter.cu: paramcount = count/n, bw bytes = paramcount*n*w.
  const auto g = collective_bytes(Collective::Gather, 1000, DType::Float32, 3);
  EXPECT_EQ(g.param_count, 83u);  // 250 elements / 3 ranks
  EXPECT_EQ(g.send_count, 83u);
  EXPECT_EQ(g.recv_count, 249u);
  EXPECT_EQ(g.size_bytes, 996u);
  EXPECT_EQ(g.bw_bytes, 996u);
  const auto s = collective_bytes(Collective::Scatter, 1000, DType::Float32, 3);
  EXPECT_EQ(s.param_count, 83u);
  EXPECT_EQ(s.send_count, 249u);
  EXPECT_EQ(s.recv_count, 83u);
  EXPECT_EQ(s.size_bytes, 996u);
  EXPECT_EQ(s.bw_bytes, 996u);
  EXPECT_EQ(request_granule(Collective::Gather, DType::Float64, 4), 32u);
  EXPECT_EQ(request_granule(Collective::Scatter, DType::Int8, 3), 3u);
  EXPECT_EQ(request_granule(Collective::Broadcast, DType::Int8, 3), 1u);
}

TEST(Collectives, RootedAndAll) {
  EXPECT_TRUE(is_rooted(Collective::Broadcast));
  EXPECT_TRUE(is_rooted(Collective::Reduce));
  EXPECT_TRUE(is_rooted(Collective::Gather));
  EXPECT_TRUE(is_rooted(Collective::Scatter));
  EXPECT_FALSE(is_rooted(Collective::AllReduce));
  EXPECT_FALSE(is_rooted(Collective::SendRecv));
  EXPECT_FALSE(is_rooted(Collective::AllToAll));
  EXPECT_EQ(all_collectives().size(), 9u);
  EXPECT_EQ(parse_collective_list("all"), all_collectives());
  EXPECT_EQ(parse_collective_list("gather,all").size(), 9u);
  EXPECT_EQ(parse_collective_list("gather,all").front(), Collective::Gather);
  EXPECT_EQ(to_string(Collective::Gather), "gather");
  EXPECT_EQ(to_string(Collective::Scatter), "scatter");
}

TEST(BusBandwidth, MatchesNcclTestsFactors) {
  // 1 GiB allreduce over 8 ranks in 4 ms: algbw = 2^30 / 1e9 / 0.004 s.
  const auto ar = bandwidth(Collective::AllReduce, 1ull << 30, 4000.0, 8);
  EXPECT_NEAR(ar.algbw_GBps, 268.435456, 1e-9);
  EXPECT_NEAR(ar.busbw_GBps, 268.435456 * 14.0 / 8.0, 1e-9);
  const auto ag = bandwidth(Collective::AllGather, 1ull << 30, 4000.0, 8);
  EXPECT_NEAR(ag.busbw_GBps, 268.435456 * 7.0 / 8.0, 1e-9);
  EXPECT_NEAR(bandwidth(Collective::ReduceScatter, 1000, 1.0, 4).busbw_GBps, 1.0 * 0.75, 1e-12);
  EXPECT_NEAR(bandwidth(Collective::AllToAll, 1000, 1.0, 4).busbw_GBps, 0.75, 1e-12);
  EXPECT_NEAR(bandwidth(Collective::Broadcast, 1000, 1.0, 4).busbw_GBps, 1.0, 1e-12);
  EXPECT_NEAR(bandwidth(Collective::Reduce, 1000, 1.0, 4).busbw_GBps, 1.0, 1e-12);
  EXPECT_NEAR(bandwidth(Collective::SendRecv, 1000, 1.0, 2).busbw_GBps, 1.0, 1e-12);
  EXPECT_NEAR(bandwidth(Collective::Gather, 1000, 1.0, 4).busbw_GBps, 0.75, 1e-12);
  EXPECT_NEAR(bandwidth(Collective::Scatter, 1000, 1.0, 3).busbw_GBps, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::AllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bandwidth(Collective::AllReduce, 1000, 0.0, 2).algbw_GBps, 0.0);
}

TEST(Names, RoundTripAndAliases) {
  for (auto c : all_collectives()) EXPECT_EQ(parse_collective(to_string(c)), c);
  EXPECT_EQ(parse_collective("AllReduce"), Collective::AllReduce);
  EXPECT_EQ(parse_collective("reduce_scatter"), Collective::ReduceScatter);
  EXPECT_EQ(parse_dtype("float"), DType::Float32);
  EXPECT_EQ(parse_dtype("half"), DType::Float16);
  EXPECT_EQ(parse_dtype("bf16"), DType::BFloat16);
  EXPECT_EQ(table_name(DType::Float32), "float");
  EXPECT_EQ(parse_dtype("float8e4m3"), DType::Float8e4m3);
  EXPECT_EQ(parse_dtype("f8e4m3"), DType::Float8e4m3);
  EXPECT_EQ(parse_dtype("fp8_e4m3"), DType::Float8e4m3);
  EXPECT_EQ(parse_dtype("Float8E5M2"), DType::Float8e5m2);
  EXPECT_EQ(parse_dtype("f8e5m2"), DType::Float8e5m2);
  EXPECT_EQ(to_string(DType::Float8e5m2), "float8e5m2");
  EXPECT_EQ(table_name(DType::Float8e4m3), "f8e4m3");
  EXPECT_EQ(parse_collective_list("allreduce,allgather,allreduce").size(), 2u);
}

TEST(Names, Fp8IsOneByteAndListed) {
  EXPECT_EQ(dtype_size(DType::Float8e4m3), 1u);
  EXPECT_EQ(dtype_size(DType::Float8e5m2), 1u);
  EXPECT_TRUE(is_fp8(DType::Float8e4m3));
  EXPECT_TRUE(is_fp8(DType::Float8e5m2));
  EXPECT_FALSE(is_fp8(DType::Int8));
  EXPECT_FALSE(is_fp8(DType::BFloat16));
  EXPECT_EQ(collective_bytes(Collective::AllGather, 4096, DType::Float8e4m3, 4).param_count, 1024u);
  try {
    parse_dtype("float8");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(e.fix().find("float8e4m3, float8e5m2"), std::string::npos) << e.fix();
  }
}

TEST(Names, UnknownNamesListWhatIsAllowed) {
  try {
    parse_collective("allscatter");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(e.fix().find("reducescatter"), std::string::npos);
  }
  EXPECT_THROW(parse_dtype("float128"), UsageError);
  EXPECT_THROW(parse_reduce_op("xor"), UsageError);
  EXPECT_THROW(parse_collective_list(","), UsageError);
}

TEST(RequestGranule, OneElementPerRankForSplitCollectives) {
  EXPECT_EQ(request_granule(Collective::AllGather, DType::Float32, 8), 32u);
  EXPECT_EQ(request_granule(Collective::AllReduce, DType::Float32, 8), 4u);
}
