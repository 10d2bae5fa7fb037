#include "app/ab/ab_samples.hpp"

#include <map>

namespace cctune::app {
namespace {

SampleKey sample_key_of(const PointResult& p) {
  return {p.collective,
          p.dtype,
          is_reduction(p.collective) ? std::optional(p.op) : std::nullopt,
          is_rooted(p.collective) ? std::optional(p.root.value_or(0)) : std::nullopt,
          p.in_place,
          p.size_bytes};
}

}  // namespace

std::string row_name(const SampleKey& k) {
  std::string s = to_string(k.collective);
  if (k.dtype != DType::Float32) s += " " + to_string(k.dtype);
  if (k.op && *k.op != ReduceOp::Sum) s += " " + to_string(*k.op);
  if (k.root) s += " root " + std::to_string(*k.root);
  return s + (k.in_place ? " (in)" : "");
}

VerifySamples collect_samples(const Results& results, int rounds) {
  std::map<SampleKey, AbSamples> samples;
  std::map<std::string, int> round_of;  // label -> runs seen so far: the round index
  VerifySamples out;
  for (const auto& run : results.runs) {
    if (run.group != "default" && run.group != "profile") continue;
    const int round = round_of[run.group]++;
    out.nranks = run.nranks, out.nnodes = run.nnodes;
    for (const auto& p : run.points) {
      if (p.status != PointStatus::Ok || !(p.iter_us.median > 0)) continue;
      AbSamples& s = samples[sample_key_of(p)];
      s.collective = p.collective;
      s.size_bytes = p.size_bytes;
      auto& v = run.group == "default" ? s.a_us : s.b_us;
      v.resize(static_cast<std::size_t>(rounds), 0.0);
      if (round < rounds) v[static_cast<std::size_t>(round)] = p.iter_us.median;
    }
  }
  for (auto& [k, s] : samples) out.keys.push_back(k), out.samples.push_back(s);
  return out;
}

}  // namespace cctune::app
