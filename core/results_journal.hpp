#pragma once
// results.journal: the sweep's points as they arrive, one JSON line each, appended and
// fsynced beside results.json. results.json itself is rewritten only at a run's start and
// end and at the sweep's end, so a point is durable the moment it is measured, even when the
// process is killed (SIGKILL, a node crash) before the next rewrite.
//
// Lines: a header {"journal":"cctune.journal/1","start_time":<meta.start_time>}, then
// {"run":R,"index":I,"point":{...}} (or "screened" instead of "point") for point I of
// results.runs[R], with "offered" (the run's nccl_offered entry for that collective) when it
// changed. Folding a journal into the results it belongs to is idempotent: a line whose
// point is already there is skipped, so folding twice, or after a rewrite, changes nothing.
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/files.hpp"
#include "core/results.hpp"

namespace cctune {

inline constexpr const char* journal_schema = "cctune.journal/1";

// DIR/results.journal for DIR/results.json.
std::string journal_path_for(const std::string& results_path);

class ResultsJournal {
 public:
  // Creates `path` exclusively (a stale journal must have been folded and removed first)
  // and writes the header naming the results it belongs to. Throws like NewFile.
  ResultsJournal(const std::string& path, const std::string& start_time);
  ResultsJournal(const ResultsJournal&) = delete;
  ResultsJournal& operator=(const ResultsJournal&) = delete;
  ~ResultsJournal();  // fsyncs what is not yet
  // Append one line with write(2) before returning: from then on no death of the process
  // (kill -9, a crash, the OOM killer) loses it. The line is fsynced at once, or, when points
  // come faster than kSyncEvery, with a later one: an fsync costs milliseconds on many disks
  // (4 ms median here), more than a small point takes to measure. `offered`: the run's
  // nccl_offered entry for p's collective when p changed it, else empty.
  void point(std::size_t run, std::size_t index, const PointResult& p, const AlgorithmOffer& offered);
  void screened(std::size_t run, std::size_t index, const PointResult& p);
  const std::string& path() const { return file_.path(); }

  static constexpr std::chrono::milliseconds kSyncEvery{50};

 private:
  void write(const std::string& line);
  NewFile file_;
  std::chrono::steady_clock::time_point last_sync_;
};

struct JournalFold {
  std::size_t added = 0;    // points (and screened points) not yet in the results
  bool torn_tail = false;   // the last line was cut (a kill in the middle of a write): ignored
};

// Adds what `journal_text` holds beyond `results`. Throws UsageError naming `source` when the
// journal belongs to other results (another start time), skips a point, or holds a line
// that is not a point cctune wrote; only the last line may be cut.
JournalFold fold_journal(Results& results, const std::string& journal_text, const std::string& source);

// Folds DIR/results.journal into `results` (read from `results_path`) when it exists.
JournalFold fold_journal_beside(Results& results, const std::string& results_path);

}  // namespace cctune
