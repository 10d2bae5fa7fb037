#include "runtime/point_gate.hpp"

#include <cmath>
#include <string>

#include "collectives/engine.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"

namespace cctune::runtime {
namespace {

// Successive halving screens in rounds that halve the candidates: far fewer than this.
constexpr int kMaxScreenRound = 64;

[[noreturn]] void refuse(const std::string& what) { throw RuntimeFailure("point message refused: " + what); }

// The fields that say which point a result is: they must be the planned point's own.
std::string identity_mismatch(const PointResult& got, const PointResult& want) {
  if (got.collective != want.collective) return "collective";
  if (got.dtype != want.dtype) return "data type";
  if (got.op != want.op) return "reduction op";
  if (got.in_place != want.in_place) return "placement";
  if (got.root != want.root) return "root";
  if (got.size_bytes != want.size_bytes || got.count != want.count) return "size";
  if (!(got.config == want.config)) return "config";
  return {};
}

}  // namespace

PointGate::PointGate(const std::vector<PointSpec>& points, int nranks)
    : points_(points), nranks_(nranks), recorded_(points.size(), false) {}

PointResult PointGate::admit(int sender, long announced, long index, const nlohmann::json& result) {
  // Only NCCL rank 0's worker reports; the others measure the same points silently.
  if (sender != 0) refuse("it came from the worker of NCCL rank " + std::to_string(sender) + ", not rank 0's");
  if (index < 0 || index >= static_cast<long>(points_.size()))
    refuse("point " + std::to_string(index) + " is not among the group's " + std::to_string(points_.size()) + " points");
  if (index != announced)
    refuse("point " + std::to_string(index) + " was not the point being measured (" + std::to_string(announced) + ")");
  PointResult r;
  try {
    r = result.get<PointResult>();
  } catch (const Error& e) {
    refuse("point " + std::to_string(index) + ": " + e.what_only());
  } catch (const std::exception&) {  // nlohmann's type errors: their text quotes nothing useful
    refuse("point " + std::to_string(index) + " has a result that is not a point result");
  }
  const PointSpec& spec = points_[static_cast<std::size_t>(index)];
  if (const std::string field = identity_mismatch(r, describe_point(spec)); !field.empty())
    refuse("point " + std::to_string(index) + " has another " + field + " than planned");
  if (r.screen_round >= kMaxScreenRound) refuse("point " + std::to_string(index) + " claims screening round " + std::to_string(r.screen_round));
  const bool repeated = r.screen_round >= 0 ? !screened_.emplace(index, r.screen_round).second : recorded_[static_cast<std::size_t>(index)];
  if (repeated) refuse("point " + std::to_string(index) + " was reported twice");
  if (r.screen_round < 0) recorded_[static_cast<std::size_t>(index)] = true;
  if (r.status == PointStatus::Ok) {
    if (!std::isfinite(r.batch_us) || r.batch_us <= 0)
      refuse("point " + std::to_string(index) + " has a batch time that is not a positive number");
    if (!r.ranks.empty() && r.ranks.size() != static_cast<std::size_t>(nranks_))
      refuse("point " + std::to_string(index) + " has per-rank columns of " + std::to_string(r.ranks.size()) + " ranks, not " +
             std::to_string(nranks_));
    // What a worker says about bandwidth is derived, not measured: derive it here.
    const Bandwidth bw = bandwidth(spec.collective, spec.bytes.bw_bytes, r.batch_us, nranks_);
    r.algbw_GBps = bw.algbw_GBps;
    r.busbw_GBps = bw.busbw_GBps;
  }
  return r;
}

}  // namespace cctune::runtime
