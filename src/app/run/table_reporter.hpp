#pragma once
// The stdout table (TablePrinter's layout): one section per collective, one row per size
// and config pairing its out-of-place and in-place points, and the average bus bandwidth.
#include <cstdio>
#include <optional>

#include "app/run/table_printer.hpp"
#include "core/reporter.hpp"

namespace cctune::app {

class TableReporter final : public Reporter {
 public:
  explicit TableReporter(std::FILE* out = stdout) : table_(out) {}
  void begin_collective(Collective c, const std::string& context) override;
  void point(const PointResult& p) override;
  void end_collective() override;
  void fail_run(const std::string& reason) override;
  void finish(MetaStatus status) override;

 private:
  void flush_row();
  TablePrinter table_;
  std::optional<PointResult> pending_oop_, pending_ip_;
  double busbw_sum_ = 0;
  long busbw_points_ = 0;
};

}  // namespace cctune::app
