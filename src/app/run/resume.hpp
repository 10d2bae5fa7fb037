#pragma once
// `cctune sweep --resume DIR`: continue an interrupted sweep from DIR/results.json,
// measuring only the points it lacks and writing back into the same file.
//
// How a sweep driver uses it (the MPI loop in mpi_sweep.cpp does exactly this; the NCCL
// runtime uses the same calls per config group):
//
//   auto resume = ResumeState::load(comm, dir, to_json(plan), nranks, nnodes);  // every rank
//   Results initial = resume.carry_over(fresh_meta, {{"mpi", "default"}});      // for results.json
//   reporters.begin_run(resume.continue_run(fresh_run));  // earlier points of the group first
//   for each point: if (resume.measured(key_of(run, spec))) skip it; else measure it
//
// Every rank holds the same lookup (rank 0 reads the file and broadcasts the keys, broadcast_as), so all
// ranks skip the same points without talking. A point counts as measured when it is "ok"
// or "skipped"; "failed" points are measured again and their old entries dropped, so no
// point appears twice in the resumed file.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectives/backend.hpp"
#include "comm/rank_comm.hpp"
#include "core/results.hpp"

namespace cctune::app {

// Identifies a point across runs: which group it belongs to and what was measured.
struct PointKey {
  std::string backend;
  std::string group;
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  bool in_place = false;
  int root = 0;                  // rooted collectives; 0 for the others
  std::uint64_t size_bytes = 0;  // as stored in results (after rounding to whole elements)
  PointConfig config;
  std::optional<P2pImpl> impl;  // NCCL's alltoall, gather, scatter
  auto tie() const {
    return std::tie(backend, group, collective, dtype, op, in_place, root, size_bytes, config.algo, config.proto, config.channels,
                    config.graph, impl);
  }
  bool operator<(const PointKey& o) const { return tie() < o.tie(); }
};

// Its one JSON form, for the keys rank 0 hands the other ranks (never written to a file):
// the fields by name, "impl" only where set. The reader names a missing or mistyped field in
// one line.
void to_json(nlohmann::json& j, const PointKey& k);
void from_json(const nlohmann::json& j, PointKey& k);

PointKey key_of(const RunResult& run, const PointResult& p);

using RunKey = std::pair<std::string, std::string>;  // (backend, group)

// What this sweep measures, exactly as its driver keys the points it skips: each point's key
// and the bytes its bandwidth counts (spec.bytes.bw_bytes), to recompute a carried algbw.
using PlannedPoints = std::map<PointKey, std::uint64_t>;
PlannedPoints planned_points(const std::vector<PointSpec>& specs, const RunKey& run);

// One entry of meta.settings.resumed, as carry_over records each resume of a sweep.
struct ResumeNote {
  std::string start_time;       // the resuming invocation's
  std::string previous_status;  // meta.status of the file it continued ("interrupted", ...)
  std::string previous_end_time;
  std::uint64_t points_kept = 0;  // completed points carried over
  std::vector<std::string> argv;  // the resuming command line
};
// meta.settings.resumed of `results`, oldest first (empty when never resumed), parsed once
// (core/result_section.hpp). A history of another form is a UsageError of one line naming the
// field ("meta.settings.resumed[0].points_kept: expected an integer, got a string").
const std::vector<ResumeNote>& resume_history_of(const Results& results);

class ResumeState {
 public:
  // Collective. Rank 0 alone reads DIR/results.json, folds in DIR/results.journal (the
  // points of a killed sweep), and validates it against the new sweep's settings
  // (to_json(plan)), rank count, node count and `planned` points; the other ranks receive
  // only the keys of the measured points. Throws UsageError (the same on every rank) when
  // the file is missing or invalid, names the first setting that differs ("dtype is float64
  // in DIR, float32 now"), or the first field of a carried point the plan does not measure.
  static ResumeState load(RankComm& comm, const std::string& dir, const nlohmann::json& settings, const PlannedPoints& planned, int nranks,
                          int nnodes);
  // The same from a Results value already in hand (tests, tools). Without `planned`, only the
  // settings, sizes and bandwidth formula are checked.
  static ResumeState from_results(Results previous, const std::string& dir, const nlohmann::json& settings, int nranks, int nnodes,
                                  const PlannedPoints* planned = nullptr);

  bool measured(const PointKey& key) const { return done_.count(key) != 0; }
  std::size_t measured_count() const { return done_.size(); }

  // The Results a resumed sweep starts from: `fresh` metadata (this invocation's argv,
  // versions, hosts) with the original start time, a note appended to
  // meta.settings.resumed, and every earlier run except those in `will_run`, which the
  // sweep re-opens with continue_run() when it reaches them.
  Results carry_over(Meta fresh, const std::set<RunKey>& will_run) const;
  // The earlier run of fresh's (backend, group) holding its measured points, with
  // status "ok" and fresh's rank/node counts; `fresh` itself when there was none.
  RunResult continue_run(RunResult fresh) const;

  const Results& previous() const { return previous_; }
  const std::string& dir() const { return dir_; }

 private:
  Results previous_;
  std::string dir_;
  std::set<PointKey> done_;
};

// The command that continues an interrupted sweep: argv with `--resume DIR` (replacing
// -o/--output and any earlier --resume; without --csv, whose file exists), shell-quoted
// where needed.
std::string resume_command(const std::vector<std::string>& argv, const std::string& dir);

}  // namespace cctune::app
