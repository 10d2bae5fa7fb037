#include "collectives/engine.hpp"

#include <chrono>
#include <string>

#include "core/statistics.hpp"

namespace cctune {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

PointResult describe_point(const PointSpec& spec) {
  PointResult r;
  r.collective = spec.collective;
  r.dtype = spec.dtype;
  r.op = spec.op;
  r.in_place = spec.in_place;
  r.size_bytes = spec.bytes.size_bytes;
  r.count = spec.bytes.param_count;
  r.config = spec.config;
  return r;
}

PointResult measure_point(CollectiveBackend& backend, RankComm& comm, const PointSpec& spec,
                          const MeasureSettings& settings) {
  PointResult result = describe_point(spec);
  const std::string why_not = backend.unsupported_reason(spec);
  // A point runs only if it runs everywhere; otherwise all ranks skip it together.
  if (comm.any(!why_not.empty())) {
    result.status = PointStatus::Skipped;
    result.reason = why_not.empty() ? "unsupported on another rank" : why_not;
    return result;
  }

  backend.prepare(spec);
  if (settings.check) {
    backend.run_batch(1);
    result.wrong = static_cast<long>(comm.sum(static_cast<double>(backend.count_wrong())));
    backend.prepare(spec);  // in-place operations overwrote their inputs
  }
  if (settings.warmup_iters > 0) backend.run_batch(settings.warmup_iters);
  comm.barrier();

  NoiseCriterion criterion(settings.stop);
  std::vector<double> batch_means;
  const auto t0 = std::chrono::steady_clock::now();
  const int n = std::max(1, settings.batch_iters);
  for (;;) {
    // One untimed operation first: the cross-rank exchanges between batches (and the
    // barrier before the first) perturb the next launch; on H200s a single first-launch
    // stall of ~1.6 ms was seen to inflate a 20-operation batch five-fold.
    backend.run_batch(1);
    BatchTiming timing = backend.run_batch(n);
    // Per-iteration: the slowest rank defines the operation's time.
    comm.allreduce_max(timing.iter_us);
    criterion.add(timing.iter_us);
    // Batch: host time per operation averaged over ranks, as nccl-tests reports.
    batch_means.push_back(comm.sum(timing.wall_us / n) / comm.size());
    // Rank 0's clock decides the time cap for everyone.
    double elapsed = comm.rank() == 0 ? seconds_since(t0) : 0.0;
    elapsed = comm.max(elapsed);
    const bool enough_batches = static_cast<int>(batch_means.size()) >= settings.min_batches ||
                                std::string(criterion.reason(elapsed)) != "noise";
    if (criterion.is_finished(elapsed) && enough_batches) {
      result.stop_reason = criterion.reason(elapsed);
      break;
    }
  }
  result.iter_us = summarize(criterion.samples());
  result.iterations = result.iter_us.count;
  result.rel_noise = criterion.relative_noise();
  result.batch_us = median(batch_means);
  const Bandwidth bw = bandwidth(spec.collective, spec.bytes.bw_bytes, result.batch_us, comm.size());
  result.algbw_GBps = bw.algbw_GBps;
  result.busbw_GBps = bw.busbw_GBps;
  const PointConfig ran = backend.chosen();
  result.chosen_algo = ran.algo == "auto" ? "" : ran.algo;
  result.chosen_proto = ran.proto == "auto" ? "" : ran.proto;
  result.chosen_channels = ran.channels;
  result.offered_algos = backend.offered_algorithms();
  return result;
}

}  // namespace cctune
