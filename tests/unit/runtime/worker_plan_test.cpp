// The points of a plan (one enumerator for the MPI sweep and the NCCL workers), the largest
// buffers, and the worker's loop driving the plan's search strategy over the selftest backend.
#include "runtime/worker_plan.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "runtime/halving_loop.hpp"
#include "runtime/module_loader.hpp"
#include "runtime/worker_loop.hpp"
#include "sample_plan.hpp"

namespace cctune::runtime {
namespace {

using samples::grid_of;
using samples::sample_nccl_plan;

PointConfig forced(const char* algo, const char* proto, int channels = 0) {
  PointConfig c;
  c.algo = parse_algorithm_choice(algo);
  c.proto = parse_protocol_choice(proto);
  c.channels = channels;
  return c;
}

TEST(PlanPoints, RootedCollectivesGetOnePointSetPerRoot) {
  SweepPlan plan = samples::sample_mpi_plan();
  grid_of(plan).collectives = {Collective::AllReduce, Collective::Broadcast, Collective::Scatter};
  grid_of(plan).sizes = {64, 4096};
  plan.space.placements = {false};
  plan.space.all_roots = true;
  const auto points = enumerate_points(plan, 3);
  // allreduce: 2 sizes; broadcast and scatter: 3 roots x 2 sizes, root outside size.
  ASSERT_EQ(points.size(), 2u + 6u + 6u);
  EXPECT_EQ(points[0].root, 0);
  EXPECT_EQ(points[2].collective, Collective::Broadcast);
  EXPECT_EQ(points[2].root, 0);
  EXPECT_EQ(points[3].root, 0);
  EXPECT_EQ(points[4].root, 1);
  EXPECT_EQ(points[7].root, 2);
  EXPECT_EQ(points[13].collective, Collective::Scatter);
  EXPECT_EQ(points[13].root, 2);
  EXPECT_EQ(points[13].bytes.param_count, 341u);  // 4096 B / 4 / 3 ranks
  EXPECT_EQ(describe(points[4]), "broadcast root 1 64 B out-of-place");
  plan.space.all_roots = false;
  plan.space.root = 2;
  EXPECT_EQ(enumerate_points(plan, 3).size(), 6u);
  EXPECT_EQ(enumerate_points(plan, 3)[2].root, 2);
}

TEST(PlanPoints, ResolvedOptions) {
  const auto plan = sample_nccl_plan();
  EXPECT_EQ(plan.measure.batch_iters, 7);
  EXPECT_EQ(plan.measure.warmup_iters, 3);
  EXPECT_TRUE(plan.measure.check);
  ASSERT_EQ(plan.nccl.configs.size(), 1u);
  EXPECT_EQ(point_configs(plan), std::vector<PointConfig>{PointConfig{}});
  ASSERT_EQ(plan.nccl.groups.size(), 3u);
  EXPECT_EQ(plan.nccl.groups[2].label, "big");
  EXPECT_EQ(plan.nccl.strategy, tuner::search::StrategyKind::Exhaustive);
}

TEST(PlanPoints, PointOrderAndDescription) {
  auto plan = sample_nccl_plan();
  plan.nccl.configs = {PointConfig{}, forced("ring", "simple", 16)};
  const auto points = enumerate_points(plan, 4);
  const std::vector<PointBlock> blocks = point_blocks(plan, points);
  ASSERT_EQ(blocks.size(), 2u);
  // allgather needs one element per rank: 8 B is raised to 4 ranks x 4 B, the 16 B the grid
  // asks for next, and is measured once (review N14).
  EXPECT_EQ(blocks[0].sizes, grid_of(plan).sizes.size());
  EXPECT_EQ(blocks[1].sizes, grid_of(plan).sizes.size() - 1);
  const std::size_t per_config = blocks[1].start / 2;  // allreduce's points of one config
  ASSERT_EQ(points.size(), 2 * (blocks[0].sizes + blocks[1].sizes) * plan.space.placements.size());
  // Configs are inner: both candidates of a size run back to back.
  EXPECT_EQ(describe(points[0]), "allreduce 8 B out-of-place");
  EXPECT_EQ(describe(points[1]), "allreduce 8 B in-place");
  EXPECT_EQ(describe(points[2]), "allreduce 8 B out-of-place ring/simple/16ch");
  EXPECT_EQ(describe(points[4]), "allreduce 16 B out-of-place");
  EXPECT_EQ(per_config, grid_of(plan).sizes.size() * plan.space.placements.size());
  EXPECT_EQ(points[blocks[1].start].collective, Collective::AllGather);
  EXPECT_EQ(describe(points[blocks[1].start]), "allgather 16 B out-of-place");
  EXPECT_EQ(describe(points[blocks[1].start + 4]), "allgather 32 B out-of-place");
  for (std::size_t c = 0; c < grid_of(plan).collectives.size(); ++c)
    for (std::size_t s = 0; s < blocks[c].sizes; ++s)
      for (std::size_t k = 0; k < plan.nccl.configs.size(); ++k)
        for (std::size_t p = 0; p < plan.space.placements.size(); ++p) {
          const PointSpec& spec = points[point_index(plan, blocks[c], s, k, p)];
          EXPECT_EQ(spec.collective, grid_of(plan).collectives[c]);
          EXPECT_EQ(spec.config, plan.nccl.configs[k]);
          EXPECT_EQ(spec.in_place, plan.space.placements[p]);
          EXPECT_EQ(spec.dtype, grid_of(plan).dtypes.front());
        }
  const BufferBytes need = largest_buffers(points);
  EXPECT_EQ(need.send, 1024u);
  EXPECT_EQ(need.recv, 1024u);
}

TEST(PlanPoints, MpiPlansHaveOneConfigPerPoint) {
  SweepPlan plan = samples::sample_mpi_plan();
  grid_of(plan).sizes = {8, 16, 32, 64};
  plan.space.placements = {true};
  const auto points = enumerate_points(plan, 2);
  ASSERT_EQ(points.size(), 3u * 4u);  // 3 collectives x 8..64 B, in-place only
  EXPECT_EQ(point_index(plan, point_blocks(plan, points)[1], 2, 0, 0), 6u);
  EXPECT_EQ(describe(points[6]), "allgather 32 B in-place");
}

TEST(PlanPoints, LargestBuffersOverCollectivesSizesAndTheRaisedSmallSizes) {
  SweepPlan plan;
  grid_of(plan).collectives = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter};
  grid_of(plan).sizes = {1024, 1 << 20};
  plan.space.placements = {false, true};
  // allreduce: 1 MiB each way; allgather: 128 KiB in, 1 MiB out; reducescatter: 1 MiB in.
  BufferBytes need = largest_buffers(enumerate_points(plan, 8));
  EXPECT_EQ(need.send, 1u << 20);
  EXPECT_EQ(need.recv, 1u << 20);
  grid_of(plan).collectives = {Collective::AllGather};
  need = largest_buffers(enumerate_points(plan, 8));
  EXPECT_EQ(need.send, (1u << 20) / 8);
  EXPECT_EQ(need.recv, 1u << 20);
  // 8 B cannot be gathered from 8 ranks: the point moves one float per rank, and the buffers
  // must hold that (the sizes alone said 0 bytes).
  grid_of(plan).sizes = {8};
  need = largest_buffers(enumerate_points(plan, 8));
  EXPECT_EQ(need.send, 4u);
  EXPECT_EQ(need.recv, 32u);
  grid_of(plan).dtypes = {DType::Float64};
  EXPECT_EQ(largest_buffers(enumerate_points(plan, 8)).recv, 64u);
}

TEST(PlanPoints, PlannedSkipsNameCollectiveAndConfig) {
  auto plan = sample_nccl_plan();
  const PointConfig tree_ll = forced("tree", "ll");
  plan.nccl.configs = {PointConfig{}, tree_ll};
  plan.skips = {{Collective::AllGather, tree_ll, "NCCL has no tree allgather"}};
  for (const PointSpec& p : enumerate_points(plan, 4)) {
    const SkipRule* skip = planned_skip(plan, p);
    const bool expected = p.collective == Collective::AllGather && p.config == tree_ll;
    EXPECT_EQ(skip != nullptr, expected) << describe(p);
    if (skip) {
      EXPECT_EQ(skip->reason, "NCCL has no tree allgather");
    }
  }
}

TEST(WorkerLoop, SearchUnitsFollowTheStrategy) {
  auto plan = sample_nccl_plan();
  const PointConfig tree_ll = forced("tree", "ll");
  plan.nccl.configs = {forced("ring", "simple"), PointConfig{}, tree_ll};
  plan.skips = {{Collective::AllGather, tree_ll, "NCCL has no tree allgather"}};
  const auto points = enumerate_points(plan, 4);
  // Exhaustive: one unit per collective, candidates config-major as the points are.
  auto units = search_units(plan, points);
  ASSERT_EQ(units.size(), 2u);
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(units[0].candidates, (Pairs{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}));
  EXPECT_EQ(units[1].block, 1u);
  EXPECT_EQ(units[1].candidates, (Pairs{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));  // tree/ll skipped
  // Halving compares configs: one unit per placement, NCCL's default always kept.
  plan.nccl.strategy = tuner::search::StrategyKind::Halving;
  units = search_units(plan, points);
  ASSERT_EQ(units.size(), 4u);
  EXPECT_EQ(units[1].candidates, (Pairs{{0, 1}, {1, 1}, {2, 1}}));
  EXPECT_EQ(units[1].nccl_default, 1u);
  EXPECT_EQ(units[3].candidates, (Pairs{{0, 1}, {1, 1}}));
}

TEST(WorkerLoop, EachRootIsABlockOfItsOwn) {
  // --root all with the NCCL backend: a rooted collective's points come once per rank, and a
  // worker's search units and point indices must land on the right root's points.
  auto plan = sample_nccl_plan();
  grid_of(plan).collectives = {Collective::AllReduce, Collective::Reduce, Collective::AllToAll, Collective::Scatter};
  grid_of(plan).sizes = {192, 384, 768, 1536};  // whole floats for each of 3 ranks: no size rounds onto another
  plan.space.all_roots = true;
  plan.nccl.configs = {PointConfig{}, forced("ring", "ll")};
  const int nranks = 3;
  const auto points = enumerate_points(plan, nranks);
  const std::size_t per_block = grid_of(plan).sizes.size() * 2 * plan.space.placements.size();
  ASSERT_EQ(points.size(), (1 + 3 + 1 + 3) * per_block);
  const std::vector<PointBlock> point_block = point_blocks(plan, points);
  ASSERT_EQ(point_block.size(), 8u);
  // Blocks in order: allreduce, reduce roots 0..2, alltoall, scatter roots 0..2.
  const std::vector<std::pair<Collective, int>> blocks{{Collective::AllReduce, 0}, {Collective::Reduce, 0},
                                                       {Collective::Reduce, 1},    {Collective::Reduce, 2},
                                                       {Collective::AllToAll, 0},  {Collective::Scatter, 0},
                                                       {Collective::Scatter, 1},   {Collective::Scatter, 2}};
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (std::size_t s = 0; s < grid_of(plan).sizes.size(); ++s)
      for (std::size_t k = 0; k < 2; ++k)
        for (std::size_t p = 0; p < plan.space.placements.size(); ++p) {
          const PointSpec& spec = points[point_index(plan, point_block[b], s, k, p)];
          EXPECT_EQ(spec.collective, blocks[b].first) << b;
          EXPECT_EQ(spec.root, blocks[b].second) << b;
          EXPECT_EQ(spec.config, plan.nccl.configs[k]);
          EXPECT_EQ(spec.in_place, plan.space.placements[p]);
        }
  const auto units = search_units(plan, points);
  ASSERT_EQ(units.size(), blocks.size());
  for (std::size_t u = 0; u < units.size(); ++u) EXPECT_EQ(units[u].block, u);
  // Every point is reached exactly once through the units.
  std::set<std::size_t> reached;
  for (const auto& unit : units)
    for (std::size_t s = 0; s < grid_of(plan).sizes.size(); ++s)
      for (const auto& [k, p] : unit.candidates) EXPECT_TRUE(reached.insert(point_index(plan, unit.points, s, k, p)).second);
  EXPECT_EQ(reached.size(), points.size());
}

// Blocks differ in length once sizes that round to one are measured once (review N14): each
// unit searches its own block's sizes, and every point is reached once.
TEST(WorkerLoop, BlocksOfDifferentLengthsAreEachSearchedWhole) {
  auto plan = sample_nccl_plan();
  grid_of(plan).sizes = {8, 16, 32, 64};  // allgather on 4 ranks: 8 B is raised to 16 B
  plan.nccl.configs = {PointConfig{}, forced("ring", "simple")};
  const auto points = enumerate_points(plan, 4);
  const std::vector<PointBlock> blocks = point_blocks(plan, points);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].sizes, 4u);
  EXPECT_EQ(blocks[1].sizes, 3u);
  for (const auto strategy : {tuner::search::StrategyKind::Exhaustive, tuner::search::StrategyKind::Halving}) {
    plan.nccl.strategy = strategy;
    std::set<std::size_t> reached;
    for (const SearchUnit& unit : search_units(plan, points))
      for (std::size_t s = 0; s < unit.points.sizes; ++s)
        for (const auto& [k, p] : unit.candidates) EXPECT_TRUE(reached.insert(point_index(plan, unit.points, s, k, p)).second);
    EXPECT_EQ(reached.size(), points.size());
  }
  std::set<std::uint64_t> gathered;
  for (const PointSpec& p : points)
    if (p.collective == Collective::AllGather) gathered.insert(p.bytes.size_bytes);
  EXPECT_EQ(gathered, (std::set<std::uint64_t>{16, 32, 64}));
}

TEST(WorkerLoop, ScreeningIsOneShortBatchWithoutNoiseTarget) {
  MeasureSettings full;
  full.warmup_iters = 5;
  full.check = true;
  full.stop.max_time_s = 0.5;
  const MeasureSettings s = screening_settings(full, 4);
  EXPECT_EQ(s.warmup_iters, 2);
  EXPECT_EQ(s.batch_iters, 4);
  EXPECT_EQ(s.min_batches, 1);
  EXPECT_EQ(s.stop.min_iterations, 4);
  EXPECT_EQ(s.stop.max_iterations, 4);  // ends on iterations, never waits for the noise target
  EXPECT_FALSE(s.check);
  EXPECT_EQ(s.stop.max_time_s, 0.5);
  EXPECT_EQ(request_settings(full, kFullMeasurement).warmup_iters, 5);
  EXPECT_EQ(screening_round(tuner::search::HalvingOptions{}.first_iterations), 0);
  EXPECT_EQ(screening_round(tuner::search::HalvingOptions{}.middle_iterations), 1);
  EXPECT_EQ(screening_round(kFullMeasurement), -1);
}

// What a worker of rank 0 emits for `plan` over the GPU-free selftest backend.
struct Emitted {
  std::vector<long> progress, points;
  std::vector<int> rounds;  // per point message: its screen_round, -1 for a full measurement
};

Emitted run_selftest_worker(const SweepPlan& plan) {
  auto module = load_nccl_module(CCTUNE_BINARY_DIR "/tests/libcctune-selftest.so");
  NcclWorkerSetup setup;
  setup.unique_id_hex = std::string(256, '0');
  auto backend = module->create_backend(setup);
  const auto points = enumerate_points(plan, 1);
  Emitted out;
  run_worker_points(*backend, module->comm(), WorkerSpec{}, plan, points, [&](const Message& m) {
    if (m.type == MessageType::Progress) out.progress.push_back(message_point(m));
    if (m.type != MessageType::Point) return;
    out.points.push_back(message_point(m));
    out.rounds.push_back(m.body["result"].value("screen_round", -1));
  });
  return out;
}

SweepPlan quick_plan() {
  SweepPlan plan;
  plan.backend = BackendChoice::Nccl;
  grid_of(plan).collectives = {Collective::AllReduce, Collective::AllGather};
  grid_of(plan).sizes = {8, 64, 512};
  plan.space.placements = {false, true};
  plan.measure.warmup_iters = 0;
  plan.measure.batch_iters = 2;
  plan.measure.stop.min_iterations = 2;
  plan.measure.stop.max_time_s = 0.002;
  plan.nccl.configs = {PointConfig{}, forced("ring", "simple"), forced("ring", "ll"), forced("tree", "simple"), forced("tree", "ll")};
  plan.skips = {{Collective::AllGather, forced("tree", "ll"), "NCCL has no tree allgather"}};
  return plan;
}

TEST(WorkerLoop, ExhaustiveWalksEveryPointInOrderThroughTheStrategy) {
  const SweepPlan plan = quick_plan();
  const auto points = enumerate_points(plan, 1);
  std::vector<long> expected;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!planned_skip(plan, points[i])) expected.push_back(static_cast<long>(i));
  const Emitted e = run_selftest_worker(plan);
  EXPECT_EQ(e.progress, expected);
  EXPECT_EQ(e.points, expected);
  EXPECT_EQ(e.rounds, std::vector<int>(expected.size(), -1));  // everything measured in full
}

TEST(WorkerLoop, HalvingScreensAndMeasuresTheDefaultInFull) {
  SweepPlan plan = quick_plan();
  plan.nccl.strategy = tuner::search::StrategyKind::Halving;
  const auto points = enumerate_points(plan, 1);
  const Emitted e = run_selftest_worker(plan);
  EXPECT_EQ(e.points, e.progress);
  std::set<long> full;
  std::set<int> rounds;
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    const PointSpec& p = points[static_cast<std::size_t>(e.points[i])];
    EXPECT_EQ(planned_skip(plan, p), nullptr) << describe(p);
    rounds.insert(e.rounds[i]);
    if (e.rounds[i] < 0) {
      EXPECT_TRUE(full.insert(e.points[i]).second) << "measured in full twice: " << describe(p);
    }
  }
  EXPECT_EQ(rounds, (std::set<int>{-1, 0, 1}));
  // Every (collective, size, placement) has NCCL's own choice measured at full length...
  std::size_t full_defaults = 0;
  for (long index : full) full_defaults += points[static_cast<std::size_t>(index)].config == PointConfig{} ? 1 : 0;
  EXPECT_EQ(full_defaults, grid_of(plan).collectives.size() * grid_of(plan).sizes.size() * plan.space.placements.size());
  // ...and screening left some configs out of the full measurements.
  EXPECT_LT(full.size(), points.size() - grid_of(plan).sizes.size() * plan.space.placements.size());
}

}  // namespace
}  // namespace cctune::runtime
