// Cost of cctune's tuner plugin on NCCL's launch path: one getCollInfo call, as NCCL makes it
// for every collective (or group of aggregated collectives). Called through the exported
// ncclTunerPlugin_v5 table, as NCCL does. Each iteration restores the cost table first (NCCL
// builds a fresh one per call); BM_RestoreTableOnly measures that part alone.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tuner/plugin/nccl_tuner_abi.hpp"
#include "tuner/plugin/sweep_control.hpp"

namespace {

using namespace cctune;

constexpr int kAlgos = 7, kProtos = 3;
constexpr float kTemplate[kAlgos][kProtos] = {
    {10.5f, 12.0f, 30.0f}, {8.25f, 9.0f, 25.0f}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}};
constexpr int kRulesPerCollective = 64;

// A profile with kRulesPerCollective disjoint ranges for each of the five collectives at
// nranks=8 nnodes=1, sizes 2^0 .. 2^40 split evenly in log space.
std::string write_profile() {
  std::string path = "/tmp/cctune_bench_profile_" + std::to_string(getpid()) + ".json";
  std::ofstream out(path);
  out << R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3"}, "rules": [)";
  const char* collectives[] = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce"};
  bool first = true;
  for (const char* c : collectives)
    for (int k = 0; k < kRulesPerCollective; ++k) {
      const unsigned long long lo = k == 0 ? 0 : 1ull << (k * 40 / kRulesPerCollective);
      const unsigned long long hi = (1ull << ((k + 1) * 40 / kRulesPerCollective)) - 1;
      if (k > 0 && lo > hi) continue;
      out << (first ? "" : ",") << R"({"collective": ")" << c << R"(", "nranks": 8, "nnodes": 1, "min_bytes": )" << lo
          << R"(, "max_bytes": )" << hi << R"(, "algo": ")" << (k % 2 ? "ring" : "tree") << R"(", "proto": "simple", "channels": )"
          << (k % 32) << "}";
      first = false;
    }
  out << "]}";
  return path;
}

std::vector<std::size_t> call_sizes() {
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 1024; ++i) sizes.push_back((std::size_t(1) << (i % 34)) + std::size_t(i) * 7);
  return sizes;
}

void quiet_logger(int, unsigned long, const char*, int, const char*, ...) {}

void run_calls(benchmark::State& state, std::size_t nranks) {
  const nccl_abi::TunerV5& plugin = ncclTunerPlugin_v5;
  void* context = nullptr;
  nccl_abi::NvlDomainInfoV5 nvl{1, 8, 8};
  nccl_abi::TunerConstantsV5 constants{};
  plugin.init(&context, 1, nranks, 1, quiet_logger, &nvl, &constants);
  const std::vector<std::size_t> sizes = call_sizes();
  float table[kAlgos][kProtos];
  std::size_t i = 0;
  for (auto _ : state) {
    std::memcpy(table, kTemplate, sizeof table);
    int channels = 0;
    plugin.get_coll_info(context, nccl_abi::kFuncAllReduce, sizes[i++ & 1023], 1, reinterpret_cast<float**>(table), kAlgos,
                         kProtos, 0, &channels);
    benchmark::DoNotOptimize(table);
    benchmark::DoNotOptimize(channels);
  }
  plugin.finalize(context);
}

void BM_RestoreTableOnly(benchmark::State& state) {
  float table[kAlgos][kProtos];
  for (auto _ : state) {
    std::memcpy(table, kTemplate, sizeof table);
    benchmark::DoNotOptimize(table);
  }
}

void BM_ProductionProfileHit(benchmark::State& state) {
  tuner::SweepControl::instance().set_off();
  run_calls(state, 8);  // the profile's shape: every size finds a rule
}

void BM_ProductionOtherShape(benchmark::State& state) {
  tuner::SweepControl::instance().set_off();
  run_calls(state, 4);  // no rules for nranks=4: NCCL is left alone
}

void BM_SweepForced(benchmark::State& state) {
  tuner::SweepControl::instance().set_forced({tuner::Algorithm::Ring, tuner::Protocol::Simple, 32});
  run_calls(state, 8);
  tuner::SweepControl::instance().set_off();
}

void BM_SweepObserve(benchmark::State& state) {
  tuner::SweepControl::instance().set_observe();
  run_calls(state, 8);
  tuner::SweepControl::instance().set_off();
}

BENCHMARK(BM_RestoreTableOnly);
BENCHMARK(BM_ProductionProfileHit);
BENCHMARK(BM_ProductionOtherShape);
BENCHMARK(BM_SweepForced);
BENCHMARK(BM_SweepObserve);

}  // namespace

int main(int argc, char** argv) {
  // The plugin reads CCTUNE_PROFILE at its first init, as in a production job.
  const std::string profile = write_profile();
  setenv("CCTUNE_PROFILE", profile.c_str(), 1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::remove(profile.c_str());
  return 0;
}
