// Search spaces: the built-in files parse, bad files are rejected naming the file, the key
// and what is allowed, and plans skip what NCCL cannot run with a reason.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "tuner/space/plan.hpp"
#include "tuner/space/space.hpp"
#include "support/thrown.hpp"

namespace cctune::tuner {
namespace {

const std::string kSpaces = std::string(CCTUNE_SOURCE_DIR) + "/configs/spaces";
const std::string kBad = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/bad_spaces/";

std::size_t skipped_with(const PlannedGroup& g, Collective c, const std::string& algo, const std::string& fragment) {
  std::size_t n = 0;
  for (const SkippedConfig& s : g.skipped)
    if (s.collective == c && to_string(s.config.algo) == algo && s.reason.find(fragment) != std::string::npos) ++n;
  return n;
}

bool planned(const PlannedGroup& g, Collective c, const std::string& algo, const std::string& proto, int channels) {
  for (const PlannedPoint& p : g.points)
    if (p.collective == c && to_string(p.config.algo) == algo && to_string(p.config.proto) == proto && p.config.channels == channels) return true;
  return false;
}

const PlannedGroup& group(const SpacePlan& plan, const std::string& name) {
  for (const PlannedGroup& g : plan.groups)
    if (g.name == name) return g;
  throw std::runtime_error("no group " + name);
}

TEST(Space, BuiltInSpacesParse) {
  for (const char* name : {"quick", "default", "exhaustive"}) {
    const SearchSpace s = load_space(name, {kSpaces});
    EXPECT_EQ(s.name, name);
    EXPECT_FALSE(s.groups.empty());
    EXPECT_EQ(s.groups[0].name, "default");
    EXPECT_TRUE(s.groups[0].env.empty());
  }
  const SearchSpace d = load_space("default", {kSpaces});
  EXPECT_EQ(d.strategy, search::StrategyKind::Halving);
  EXPECT_EQ(d.sizes.expand().front(), 8u);
  EXPECT_EQ(d.sizes.expand().back(), 512u << 20);
  EXPECT_EQ(load_space(kSpaces + "/quick.json", {}).name, "quick");  // a path works too
}

TEST(Space, DefaultCoversNineCollectivesPointToPointOnlyWithNcclsChoice) {
  const SearchSpace d = load_space("default", {kSpaces});
  EXPECT_EQ(d.collectives, all_collectives());
  SpaceContext ctx;
  ctx.nranks = 8;
  ctx.nnodes = 1;
  const SpacePlan plan = plan_space(d, ctx);
  for (const char* p2p : {"p2p-nvl-chunk-1M", "p2p-channels-32", "buffsize-8M"}) EXPECT_TRUE(group(plan, p2p).skip_reason.empty()) << p2p;
  for (const char* net : {"p2p-net-chunk-512K", "net-peer-channels-4"})
    EXPECT_NE(group(plan, net).skip_reason.find("across nodes"), std::string::npos) << net;
  const PlannedGroup& g = group(plan, "p2p-nvl-chunk-1M");
  std::set<Collective> planned_collectives;
  for (const PlannedPoint& p : g.points) {
    planned_collectives.insert(p.collective);
    if (!is_tunable(p.collective)) {
      EXPECT_TRUE(p.config.is_default()) << to_string(p.collective);
    }
  }
  EXPECT_EQ(planned_collectives.size(), 9u);
  std::size_t p2p_skips = 0;
  for (const SkippedConfig& k : g.skipped)
    if (!is_tunable(k.collective) && k.config.algo && k.config.proto) {
      ++p2p_skips;
      EXPECT_NE(k.reason.find("point-to-point path"), std::string::npos) << k.reason;
    }
  EXPECT_GT(p2p_skips, 0u);
  // broadcast and reduce: ring with each protocol, forced.
  bool ring_ll_broadcast = false;
  for (const PlannedPoint& p : g.points)
    ring_ll_broadcast |= p.collective == Collective::Broadcast && p.config.algo == Algorithm::Ring && p.config.proto == Protocol::LL;
  EXPECT_TRUE(ring_ll_broadcast);
}

TEST(Space, DtypeIsANameOrAList) {
  const std::string base = R"({"name": "x", "collectives": ["allreduce"], "sizes": {"min": "8", "max": "1M"}, "algorithms": ["auto"], "protocols": ["auto"], )";
  EXPECT_EQ(parse_space(base + R"("dtype": "bfloat16"})", "s.json").dtypes, std::vector<DType>{DType::BFloat16});
  EXPECT_EQ(parse_space(base + R"("dtype": ["float32", "int32"]})", "s.json").dtypes, (std::vector<DType>{DType::Float32, DType::Int32}));
  EXPECT_NE(cctune::testing::thrown_description<UsageError>([&] { parse_space(base + R"("dtype": ["float32", "float32"]})", "s.json"); }).find("listed twice"), std::string::npos);
  SpaceContext ctx;
  ctx.nranks = 4;
  const std::size_t one = plan_space(parse_space(base + R"("dtype": "float32"})", "s.json"), ctx).points;
  const SpacePlan two = plan_space(parse_space(base + R"("dtype": ["float32", "int32"]})", "s.json"), ctx);
  EXPECT_EQ(two.points, 2 * one);  // each data type is measured
  EXPECT_EQ(two.groups[0].points.back().dtype, DType::Int32);
  EXPECT_NE(cctune::testing::thrown_description<UsageError>([&] { parse_space(base + R"("dtype": []})", "s.json"); }).find("key \"dtype\""), std::string::npos);
  EXPECT_NE(cctune::testing::thrown_description<UsageError>([&] { parse_space(base + R"("dtype": ["float7"]})", "s.json"); }).find("float7 is not allowed"), std::string::npos);
}

TEST(Space, BadFilesNameFileKeyAndAllowed) {
  std::string m = cctune::testing::thrown_description<UsageError>([] { load_space(kBad + "unknown_algorithm.json", {}); });
  EXPECT_NE(m.find("unknown_algorithm.json"), std::string::npos) << m;
  EXPECT_NE(m.find("\"algorithms\""), std::string::npos) << m;
  EXPECT_NE(m.find("\"trees\""), std::string::npos) << m;
  EXPECT_NE(m.find("allowed: auto, tree, ring"), std::string::npos) << m;

  m = cctune::testing::thrown_description<UsageError>([] { load_space(kBad + "unknown_key.json", {}); });
  EXPECT_NE(m.find("unknown_key.json: key \"chanels\": unknown key"), std::string::npos) << m;
  EXPECT_NE(m.find("channels"), std::string::npos) << m;

  m = cctune::testing::thrown_description<UsageError>([] { load_space(kBad + "group_env_with_space.json", {}); });
  EXPECT_NE(m.find("groups[0].env.NCCL_SOCKET_IFNAME"), std::string::npos) << m;

  const std::string base = R"({"name": "x", "collectives": ["allreduce"], "sizes": {"min": "8", "max": "1M"}, )";
  m = cctune::testing::thrown_description<UsageError>([&] { parse_space(base + R"("algorithms": ["ring"], "protocols": ["simple"]})", "s.json"); });
  EXPECT_NE(m.find("NCCL's default"), std::string::npos) << m;
  m = cctune::testing::thrown_description<UsageError>([&] { parse_space(base + R"("algorithms": ["auto"], "protocols": ["auto"], "channels": [0, 65]})", "s.json"); });
  EXPECT_NE(m.find("key \"channels\": 65"), std::string::npos) << m;
  m = cctune::testing::thrown_description<UsageError>([&] {
    parse_space(base + R"("algorithms": ["auto"], "protocols": ["auto"], "groups": [{"name": "n", "env": {"NCCL_NVLS_ENABLE": "1"}}]})",
                "s.json");
  });
  EXPECT_NE(m.find("env.NCCL_NVLS_ENABLE\": is \"1\": a group may only disable NVLS"), std::string::npos) << m;
  m = cctune::testing::thrown_description<UsageError>([&] { parse_space(R"({"name": "x", "collectives": ["allscatter"], "sizes": {"min": 8, "max": 64},
                  "algorithms": ["auto"], "protocols": ["auto"]})",
                "s.json"); });
  EXPECT_NE(m.find("allowed: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, gather, scatter"), std::string::npos) << m;
  m = cctune::testing::thrown_description<UsageError>([&] { parse_space("{", "broken.json"); });
  EXPECT_NE(m.find("broken.json is not valid JSON"), std::string::npos) << m;
  m = cctune::testing::thrown_description<UsageError>([] { load_space("nosuch", {kSpaces}); });
  EXPECT_NE(m.find("default, exhaustive, quick"), std::string::npos) << m;
}

TEST(Plan, SingleEightGpuNodeSkipsWhatNcclCannotRun) {
  SpaceContext ctx;
  ctx.nranks = 8;
  ctx.nnodes = 1;
  ctx.channel_ceiling = 24;
  const SpacePlan plan = plan_space(load_space("default", {kSpaces}), ctx);
  const PlannedGroup& d = group(plan, "default");
  EXPECT_TRUE(d.skip_reason.empty());
  EXPECT_GT(skipped_with(d, Collective::AllGather, "tree", "allreduce only"), 0u);
  EXPECT_GT(skipped_with(d, Collective::ReduceScatter, "tree", "allreduce only"), 0u);
  EXPECT_GT(skipped_with(d, Collective::AllGather, "pat", "one GPU per node"), 0u);
  // Whether NCCL offers NVLS or CollNet is unknown here: planned, NCCL answers at run time.
  EXPECT_TRUE(planned(d, Collective::AllReduce, "nvls", "simple", 0));
  EXPECT_GT(skipped_with(d, Collective::AllReduce, "nvls", "simple protocol only"), 0u);
  EXPECT_GT(skipped_with(d, Collective::AllReduce, "nvls_tree", "across nodes only"), 0u);
  EXPECT_TRUE(planned(d, Collective::AllReduce, "collnet_direct", "simple", 0));
  EXPECT_GT(skipped_with(d, Collective::AllGather, "collnet_chain", "allreduce only"), 0u);
  EXPECT_TRUE(planned(d, Collective::AllReduce, "tree", "ll128", 8));
  EXPECT_TRUE(planned(d, Collective::AllGather, "auto", "auto", 0));
  EXPECT_FALSE(planned(d, Collective::AllReduce, "ring", "simple", 32));  // above 24
  EXPECT_TRUE(planned(group(plan, "channels-32"), Collective::AllReduce, "ring", "simple", 32));
  EXPECT_EQ(group(plan, "channels-32").channel_ceiling, 32);
  EXPECT_NE(group(plan, "ib-hca-nearest").skip_reason.find("across nodes"), std::string::npos);
  EXPECT_NE(group(plan, "ib-qps-4").skip_reason, "");
  // allgather sizes are whole multiples of nranks x 4 bytes
  for (const PlannedPoint& p : d.points) {
    if (p.collective == Collective::AllGather) {
      EXPECT_EQ(p.size_bytes % 32, 0u);
    }
  }
  EXPECT_GT(plan.points, 0u);
  EXPECT_GT(plan.estimated_s, 0.0);

  const std::string text = format_plan(plan);
  EXPECT_NE(text.find("group default: (NCCL defaults)"), std::string::npos) << text;
  EXPECT_NE(text.find("group ib-hca-nearest: skipped"), std::string::npos) << text;
  EXPECT_NE(text.find("NCCL's tree algorithm implements allreduce only"), std::string::npos) << text;
  EXPECT_NE(text.find("estimated"), std::string::npos) << text;
}

TEST(Plan, OneGpuPerNodeAcrossNodesRunsPatAndDerivesNics) {
  SpaceContext ctx;
  ctx.nranks = 4;
  ctx.nnodes = 4;
  ctx.nearest_nics = {"mlx5_0", "mlx5_3"};
  const SpacePlan plan = plan_space(load_space("default", {kSpaces}), ctx);
  const PlannedGroup& d = group(plan, "default");
  EXPECT_TRUE(planned(d, Collective::AllGather, "pat", "simple", 0));
  EXPECT_GT(skipped_with(d, Collective::AllGather, "pat", "simple protocol only"), 0u);
  EXPECT_FALSE(planned(d, Collective::AllReduce, "pat", "simple", 0));
  EXPECT_TRUE(planned(d, Collective::AllReduce, "ring", "simple", 32));  // ceiling unknown: not skipped
  const PlannedGroup& hca = group(plan, "ib-hca-nearest");
  EXPECT_TRUE(hca.skip_reason.empty()) << hca.skip_reason;
  EXPECT_EQ(hca.env.at("NCCL_IB_HCA"), "=mlx5_0,mlx5_3");
  EXPECT_TRUE(group(plan, "ib-qps-4").skip_reason.empty());
}

// Found by the space fuzzer: a description that is not a string escaped as nlohmann's
// type_error instead of a one-line UsageError.
// Rank 0 hands the space file's text to the others through SpaceText's codec (broadcast_as).
TEST(SpaceFile, TextTravelsThroughItsCodec) {
  const SpaceText t{"{\"name\": \"x\"}\n", "/etc/cctune/x.json"};
  const SpaceText back = nlohmann::json::parse(nlohmann::json(t).dump()).get<SpaceText>();
  EXPECT_EQ(back.text, t.text);
  EXPECT_EQ(back.source, t.source);
  EXPECT_EQ(testing::thrown_message<UsageError>([] { nlohmann::json{{"text", "t"}}.get<SpaceText>(); }), "space text.source is missing");
}

TEST(SpaceFile, DescriptionMustBeAString) {
  std::string text = read_file(std::string(kSpaces) + "/quick.json");
  text.insert(text.find("\"sizes\""), "\"description\": [\"allreduce\"],\n  ");
  EXPECT_THROW(parse_space(text, "edited.json"), UsageError);
}

// The dimensions given replace the space's: the plan multiplies them as the run does (each
// p2p implementation, each root, each placement), so --dry-run can show the run's points.
TEST(Plan, GivenDimensionsReplaceTheSpacesOwn) {
  const SearchSpace space = load_space("quick", {kSpaces});
  SpaceContext ctx;
  ctx.nranks = 4;
  ctx.nnodes = 1;
  PlanDimensions d = dimensions_of(space);
  d.space.points = PointGrid{{Collective::AllToAll, Collective::Broadcast}, {1024, 4096}, {DType::Float32}};
  d.configs = {PointConfig{}};  // NCCL's own choice: feasible for both
  d.space.impls = {P2pImpl::Native, P2pImpl::Grouped};
  d.space.placements = {false, true};
  d.space.all_roots = true;
  const SpacePlan plan = plan_space(space, ctx, d);
  const PlannedGroup& g = group(plan, "default");
  std::size_t alltoall = 0, broadcast = 0;
  std::set<int> roots;
  for (const PlannedPoint& p : g.points) {
    if (p.collective == Collective::AllToAll) ++alltoall;
    if (p.collective == Collective::Broadcast) {
      ++broadcast;
      roots.insert(p.root);
    }
  }
  EXPECT_EQ(alltoall, 2u * 2u * 2u);        // implementations x sizes x placements
  EXPECT_EQ(broadcast, 4u * 2u * 2u);       // roots x sizes x placements
  EXPECT_EQ(roots, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(g.points.size(), alltoall + broadcast);  // no collective of the space's own list
}

// A job's shapes that come back to a collective (allreduce, allgather, allreduce) are each
// planned once per config, at their own sizes raised to whole elements on 4 ranks, as the run
// measures them.
TEST(Plan, AJobsShapesArePlannedOnceEachAtTheRunsSizes) {
  const SearchSpace space = load_space("quick", {kSpaces});
  SpaceContext ctx;
  ctx.nranks = 4;
  ctx.nnodes = 1;
  PlanDimensions d = dimensions_of(space);
  d.space.points = PointShapes{{{Collective::AllReduce, DType::Float32, 4096},
                                {Collective::AllGather, DType::BFloat16, 16390},
                                {Collective::AllReduce, DType::Float32, 1 << 20}}};
  d.configs = {PointConfig{}};
  const SpacePlan plan = plan_space(space, ctx, d);
  const PlannedGroup& g = group(plan, "default");
  ASSERT_EQ(g.points.size(), 3u);
  std::multiset<std::uint64_t> sizes;
  for (const PlannedPoint& p : g.points) sizes.insert(p.size_bytes);
  EXPECT_EQ(sizes, (std::multiset<std::uint64_t>{4096, 16384, 1 << 20}));  // 16390 B of bf16 on 4 ranks: 16384
}

TEST(Plan, NvlsCandidatesFollowWhatNcclOffers) {
  const SearchSpace space = load_space("default", {kSpaces});
  SpaceContext ctx;
  ctx.nranks = 8;
  ctx.nnodes = 1;
  // As an 8-GPU NVSwitch node's cost tables report it with NVLS enabled (NCCL's default there).
  ctx.offered[Collective::AllReduce] = algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls);
  ctx.offered[Collective::AllGather] = algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls);
  ctx.offered[Collective::ReduceScatter] = algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls);
  const SpacePlan on = plan_space(space, ctx);
  const PlannedGroup& d = group(on, "default");
  EXPECT_TRUE(planned(d, Collective::AllReduce, "nvls", "simple", 0));
  EXPECT_TRUE(planned(d, Collective::AllReduce, "nvls", "simple", 16));
  EXPECT_TRUE(planned(d, Collective::AllGather, "nvls", "simple", 0));
  EXPECT_GT(skipped_with(d, Collective::AllReduce, "collnet_direct", "cost table offered no collnet_direct"), 0u);

  ctx.offered[Collective::AllReduce] = algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring);  // NVLS off, or no NVSwitch
  const SpacePlan off = plan_space(space, ctx);
  EXPECT_FALSE(planned(group(off, "default"), Collective::AllReduce, "nvls", "simple", 0));
  EXPECT_GT(skipped_with(group(off, "default"), Collective::AllReduce, "nvls", "cost table offered no nvls for allreduce"), 0u);

  SpaceContext caller_off;
  caller_off.nranks = 8;
  caller_off.caller_disables_nvls = true;
  const SpacePlan c = plan_space(space, caller_off);
  EXPECT_GT(skipped_with(group(c, "default"), Collective::AllReduce, "nvls", "caller's environment sets NCCL_NVLS_ENABLE=0"), 0u);
  EXPECT_NE(unsupported_reason(Collective::AllReduce, {Algorithm::Nvls, Protocol::Simple, 0, false}, SpaceContext{}, 0, true).find("this group sets"),
            std::string::npos);
}

TEST(Plan, AutoMustPairWithAuto) {
  SpaceContext ctx;
  ctx.nranks = 8;
  EXPECT_NE(unsupported_reason(Collective::AllReduce, {std::nullopt, Protocol::Simple, 0, false}, ctx, 0), "");
  EXPECT_EQ(unsupported_reason(Collective::AllReduce, {std::nullopt, std::nullopt, 0, false}, ctx, 0), "");
  // The plugin forces channels only with an algorithm and a protocol (the backend refuses it).
  EXPECT_NE(unsupported_reason(Collective::AllReduce, {std::nullopt, std::nullopt, 16, false}, ctx, 0).find("with \"auto\" NCCL picks all three"),
            std::string::npos);
  EXPECT_NE(unsupported_reason(Collective::Broadcast, {Algorithm::Tree, Protocol::LL, 0, false}, ctx, 0), "");
  EXPECT_EQ(unsupported_reason(Collective::Broadcast, {Algorithm::Ring, Protocol::LL, 0, false}, ctx, 0), "");
}

}  // namespace
}  // namespace cctune::tuner

namespace cctune::tuner {
namespace {

// Issue 24, F6: this 446-byte space plans about 10^9 points (9 collectives x 96 configs x 12
// data types x 92 000 sizes). Planning once materialised them all and died of bad_alloc; now it
// counts them first and refuses in one line, in bounded time and memory (the ctest also runs the
// dry run of this file under `ulimit -v`, tests/mpi/tuner).
const char* const kSmallBigSpace =
    R"({"schema":"cctune.space/1","name":"tiny","collectives":["allreduce","allgather","reducescatter","broadcast","reduce","alltoall","sendrecv","gather","scatter"],
 "sizes":{"min":1,"max":"1T","factor":1.0003},"dtype":["int8","uint8","int32","uint32","int64","uint64","float16","float32","float64","bfloat16","float8e4m3","float8e5m2"],
 "algorithms":["auto","ring","tree"],"protocols":["auto","ll","ll128","simple"],"channels":[0,1,2,4,8,16,32,64]})";

TEST(Plan, TooManyPointsAreCountedAndRefusedBeforeAnyIsMade) {
  const SearchSpace space = parse_space(kSmallBigSpace, "small_big_space.json");
  SpaceContext ctx;
  ctx.nranks = 8;
  const std::string e = cctune::testing::thrown_description<UsageError>([&] { plan_space(space, ctx); });
  EXPECT_NE(e.find("space tiny plans"), std::string::npos) << e;
  EXPECT_NE(e.find("more than a sweep may measure (10000000)"), std::string::npos) << e;
  EXPECT_NE(e.find("Fix: narrow the space"), std::string::npos) << e;
}

TEST(Plan, ALargeButBoundedSpaceIsPlannedInFull) {
  // 1 collective x 1 config x 1 dtype x about 73 000 distinct sizes: under both limits, so every
  // point is made (the count comes first, it does not refuse what fits).
  const SearchSpace space = parse_space(
      R"({"name":"edge","collectives":["allreduce"],"sizes":{"min":1,"max":"1T","factor":1.00027925},"algorithms":["auto"],"protocols":["auto"],"channels":[0]})",
      "edge.json");
  const SpacePlan plan = plan_space(space, SpaceContext{});
  EXPECT_EQ(plan.points, space.sizes.expand().size());
  EXPECT_GT(plan.points, 50000u);
}

TEST(SpaceFile, ASizeListIsCappedLikeTheCommandLine) {
  std::string list;
  for (int i = 1; i <= 100001; ++i) list += (i > 1 ? "," : "") + std::to_string(i);
  const std::string e = cctune::testing::thrown_description<UsageError>([&] {
    parse_space(R"({"name":"long","collectives":["allreduce"],"sizes":{"list":[)" + list +
                    R"(]},"algorithms":["auto"],"protocols":["auto"],"channels":[0]})",
                "long.json");
  });
  EXPECT_NE(e.find("key \"sizes.list\": has 100001 sizes, more than 100000"), std::string::npos) << e;
}

}  // namespace
}  // namespace cctune::tuner
