#pragma once
// Rank 0's side of a sweep: collects points into Results, prints the table, and saves
// results.json atomically after every collective so an interrupted run keeps its data.
#include <optional>
#include <string>

#include "app/table_printer.hpp"
#include "core/results.hpp"

namespace cctune::app {

class ResultsSink {
 public:
  ResultsSink(Results initial, std::string path, bool print_table);
  // Starts a new run (config group); later points go into it.
  void begin_run(RunResult run);
  void begin_collective(Collective c, const std::string& context);
  // Points arrive out-of-place then in-place per size; a table row is printed per size.
  void add_point(const PointResult& p);
  void end_collective();
  // A screening measurement of the halving strategy: kept in the run, not printed.
  void add_screened(const PointResult& p);
  void fail_run(const std::string& reason);
  // The current run's wall time and the part before its first point.
  void set_run_timing(double duration_s, double startup_s);
  void save();
  // Sets meta status and end time, and saves.
  void finish(MetaStatus status);
  const Results& results() const { return results_; }
  const std::string& path() const { return path_; }

 private:
  void flush_row();
  Results results_;
  std::string path_;
  bool print_;
  TablePrinter table_{stdout};
  std::optional<PointResult> pending_oop_, pending_ip_;
  double busbw_sum_ = 0;
  long busbw_points_ = 0;
};

}  // namespace cctune::app
