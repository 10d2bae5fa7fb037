#include "workload/profiler/shape_table.hpp"

#include <algorithm>
#include <cstdio>

#include "workload/nccl_names.hpp"

namespace cctune::tuner {

std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t hash_of(const ShapeKey& k) noexcept {
  std::uint64_t h = hash_mix(0, static_cast<std::uint64_t>(k.kind));
  h = hash_mix(h, static_cast<std::uint64_t>(k.collective));
  h = hash_mix(h, static_cast<std::uint64_t>(k.dtype));
  h = hash_mix(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.root)));
  h = hash_mix(h, k.count * 0xff51afd7ed558ccdull);
  return h ^ (h >> 29);
}

void ShapeStats::add_applied(int algo, int proto, int channels) noexcept {
  for (int i = 0; i < applied_used; ++i) {
    AppliedCount& a = applied[static_cast<std::size_t>(i)];
    if (a.algo == algo && a.proto == proto && a.channels == channels) {
      ++a.calls;
      return;
    }
  }
  if (applied_used == max_applied) {
    ++applied_other;
    return;
  }
  applied[static_cast<std::size_t>(applied_used++)] = AppliedCount{algo, proto, channels, 1};
}

void ShapeStats::add_duration(std::uint64_t ns, bool from_gpu) noexcept {
  const double d = static_cast<double>(ns);
  min_ns = samples == 0 ? d : std::min(min_ns, d);
  max_ns = samples == 0 ? d : std::max(max_ns, d);
  sum_ns += d;
  ++samples;
  gpu_samples += from_gpu ? 1 : 0;
  std::uint32_t& bucket = histogram[static_cast<std::size_t>(workload::duration_bucket(d / 1000.0))];
  if (bucket != UINT32_MAX) ++bucket;
}

namespace {

// The index's size: a power of two at least twice the capacity (load <= 1/2), so a position is
// a mask, not a division, on the launch path.
std::size_t index_size(std::size_t capacity) {
  std::size_t n = 2;
  while (n < 2 * capacity) n *= 2;
  return n;
}

}  // namespace

ShapeTable::ShapeTable(std::size_t capacity) : capacity_(capacity), index_(index_size(capacity), 0) {}

std::optional<std::size_t> ShapeTable::position(const ShapeKey& key) {
  const std::size_t wrap = index_.size() - 1;
  std::size_t pos = hash_of(key) & wrap;
  for (std::size_t probes = 0; probes <= wrap; ++probes, pos = (pos + 1) & wrap) {
    const std::uint32_t slot = index_[pos];
    if (slot == 0) break;
    if (stats_[slot - 1].key == key) return slot - 1;
  }
  if (stats_.size() >= capacity_ || index_[pos] != 0) {
    ++not_recorded_;
    return std::nullopt;
  }
  stats_.emplace_back();
  stats_.back().key = key;
  index_[pos] = static_cast<std::uint32_t>(stats_.size());
  return stats_.size() - 1;
}

std::optional<std::size_t> ShapeTable::count(const ShapeKey& key) {
  const std::optional<std::size_t> i = position(key);
  if (i) stats_[*i].count_one();
  return i;
}

workload::Communicator to_communicator(const ShapeTable& table, std::uint64_t comm_hash, int nranks, int nnodes, int rank) {
  workload::Communicator c;
  char id[32];
  std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(comm_hash));  // as NCCL's log prints commId
  c.id = id;
  c.nranks = nranks;
  c.nnodes = nnodes;
  c.ranks = {rank};
  c.calls_not_recorded = table.calls_not_recorded();
  for (const ShapeStats& s : table.stats()) {
    const std::uint64_t calls = s.call_count();
    if (calls == 0) continue;
    workload::CallStats cs;
    cs.shape = workload::make_shape({s.key.kind, s.key.collective}, s.key.dtype, std::nullopt, s.key.root, s.key.count, nranks);
    if (cs.shape.bytes == 0 && cs.shape.count > 0) {  // beyond any real call's bytes: a file the reader refuses otherwise
      c.calls_not_recorded += calls;
      continue;
    }
    cs.calls = calls;
    for (int i = 0; i < s.applied_used; ++i) {
      const AppliedCount& a = s.applied[static_cast<std::size_t>(i)];
      if (a.algo < 0 && a.channels == 0) continue;
      cs.applied.push_back({algorithm_from_index(a.algo), protocol_from_index(a.proto), a.channels, a.calls});
    }
    if (s.samples > 0) {
      workload::Durations& d = cs.durations;
      d.samples = s.samples;
      d.sum_us = s.sum_ns / 1000.0;
      d.min_us = s.min_ns / 1000.0;
      d.max_us = s.max_ns / 1000.0;
      d.clock = s.gpu_samples == s.samples ? "gpu" : s.gpu_samples == 0 ? "host" : "mixed";
      for (std::size_t b = 0; b < s.histogram.size(); ++b)
        if (s.histogram[b] > 0) d.histogram[static_cast<int>(b)] = s.histogram[b];
    }
    c.calls.push_back(std::move(cs));
  }
  std::sort(c.calls.begin(), c.calls.end(), [](const auto& a, const auto& b) { return a.shape < b.shape; });
  return c;
}

}  // namespace cctune::tuner
