#pragma once
// `cctune sweep --csv FILE`: one row per point of results.json (runs[].points, in order;
// the halving strategy's screening measurements are not points), with the columns a user
// diffs against nccl-tests. The only place that knows this CSV layout; the columns are
// listed in docs/RESULTS.md "CSV".
#include <string>

#include "core/files.hpp"
#include "core/reporter.hpp"

namespace cctune::app {

class CsvReporter final : public Reporter {
 public:
  // Creates `path` exclusively and writes the header. Throws UsageError when it exists.
  explicit CsvReporter(const std::string& path);
  // Points a --resume run carries over are written here, so the file matches results.json.
  void begin_run(const RunResult& run) override;
  void point(const PointResult& p) override;
  // Rows reach the disk (fsync) after every collective, as results.json does, and at the end.
  void end_collective() override;
  void fail_run(const std::string& reason) override;
  void finish(MetaStatus status) override;

  // The header line, without its newline.
  static std::string header();
  // One point's row, without its newline.
  static std::string row(const RunResult& run, const PointResult& p);

 private:
  void write_row(const PointResult& p);
  void sync();
  NewFile file_;
  RunResult run_;  // the current run's backend and group (its points are not kept)
};

}  // namespace cctune::app
