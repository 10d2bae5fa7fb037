#pragma once
// Lines up several results files for `cctune compare` and `cctune report`: each config
// group of each file is a series; points are matched across series by (collective, dtype,
// op, root, in_place, size); settings that differ between series are listed, never silently mixed.
// This computes; table_printer / export / html format.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace cctune::app::report {

struct InputFile {
  std::string path;   // empty when the results did not come from a file (sweep's own report)
  std::string label;  // set by build_comparison when empty
  Results results;
};

// Loads and validates each file; errors are one line naming the file (UsageError).
std::vector<InputFile> load_inputs(const std::vector<std::string>& paths);

// One column: one config group (RunResult) of one file.
struct Series {
  std::string label;
  std::size_t file = 0;  // index into Comparison::files
  std::size_t run = 0;   // index into files[file].results.runs
};

// The rows of one table: a collective with one dtype, op (reductions), root (rooted
// collectives) and placement. Points of different ops or roots are never one series.
struct TableKey {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  bool in_place = false;
  std::optional<ReduceOp> op;  // reductions only
  std::optional<int> root;     // broadcast, reduce, gather, scatter only
  std::optional<P2pImpl> impl;  // NCCL's alltoall, gather, scatter: native and grouped never share a table
  auto operator<=>(const TableKey&) const = default;
};
TableKey table_key_of(const PointResult& p);
// "allreduce float32 out-of-place", "reduce float32 max root 1 in-place": the op when it is
// not sum (nccl-tests' default), the root of a rooted collective, the implementation
// ("alltoall float32 native out-of-place") where the point records one.
std::string describe(const TableKey& k);

// "auto" for NCCL's own choice, else "ring/simple/16ch" (parts left at auto are omitted).
std::string describe(const PointConfig& c);

struct Cell {
  const PointResult* point = nullptr;  // nullptr: size not measured in this series
  bool best_of_tuned = false;          // no NCCL-default point: the best tuned one is shown
  std::optional<double> ratio;         // busbw / first series' busbw, both ok and > 0
};

struct Row {
  std::uint64_t size_bytes = 0;
  std::vector<Cell> cells;  // one per series
};

struct Table {
  TableKey key;
  std::vector<Row> rows;
};

// A series' best tuned point (config not auto) against its NCCL-default point, per size.
struct TunedRow {
  std::uint64_t size_bytes = 0;
  const PointResult* default_point = nullptr;
  const PointResult* best_tuned = nullptr;
  std::optional<double> speedup;  // default batch_us / tuned batch_us
};

struct TunedTable {
  std::size_t series = 0;
  TableKey key;
  std::vector<TunedRow> rows;
};

// A failed group, or a failed / skipped point (skipped points grouped by reason).
struct Problem {
  std::size_t series = 0;
  std::string kind;     // "group failed" | "group interrupted" | "point failed" | "skipped"
  std::string what;     // "allreduce float32 out-of-place 1 MiB ring/ll" or "24 points (8 B..1 MiB)"
  std::string reason;
};

struct Comparison {
  Comparison() = default;
  Comparison(Comparison&&) = default;
  Comparison& operator=(Comparison&&) = default;
  Comparison(const Comparison&) = delete;  // cells point into `files`
  Comparison& operator=(const Comparison&) = delete;

  std::vector<InputFile> files;
  std::vector<Series> series;
  std::vector<std::string> mismatches;  // one line each, naming the series / files
  std::vector<Table> tables;
  std::vector<TunedTable> tuned;
  std::vector<Problem> problems;

  const RunResult& run_of(const Series& s) const { return files[s.file].results.runs[s.run]; }
  const Results& results_of(const Series& s) const { return files[s.file].results; }
  // "shm = a.json (mpi, group default, 2 ranks, 1 node)"; a test-mode run says so.
  std::string describe_series(std::size_t i) const;
  // "shared-gpu" when the series was measured in a test mode (never performance), else empty.
  std::string test_mode_of_series(std::size_t i) const;
};

struct CompareOptions {
  // One label per file, or one per series (config group); empty: derived from file names.
  std::vector<std::string> labels;
  // Files that share no point with the first file are an error unless this is set
  // (the report shows them anyway).
  bool allow_disjoint = false;
};

// Throws UsageError (one line, naming the file) when labels do not fit or a file has
// nothing in common with the first one.
Comparison build_comparison(std::vector<InputFile> files, const CompareOptions& options);

}  // namespace cctune::app::report
