#include "app/run/table_reporter.hpp"

namespace cctune::app {

void TableReporter::begin_collective(Collective c, const std::string& context) {
  busbw_sum_ = 0;
  busbw_points_ = 0;
  table_.header(c, context);
}

void TableReporter::point(const PointResult& p) {
  if (p.status == PointStatus::Ok) {
    busbw_sum_ += p.busbw_GBps;
    ++busbw_points_;
  }
  // A row is complete when both placements of a size and config arrived, or the next
  // point belongs to another row (only one placement was measured).
  const PointResult* current = pending_oop_ ? &*pending_oop_ : pending_ip_ ? &*pending_ip_ : nullptr;
  if (current && (current->size_bytes != p.size_bytes || !(current->config == p.config))) flush_row();
  (p.in_place ? pending_ip_ : pending_oop_) = p;
  if (pending_oop_ && pending_ip_) flush_row();
}

void TableReporter::flush_row() {
  if (pending_oop_ || pending_ip_) table_.row(pending_oop_, pending_ip_);
  pending_oop_.reset();
  pending_ip_.reset();
}

void TableReporter::end_collective() {
  flush_row();
  table_.footer(busbw_points_ ? busbw_sum_ / busbw_points_ : 0.0, busbw_points_);
}

void TableReporter::fail_run(const std::string&) { flush_row(); }

void TableReporter::finish(MetaStatus) { flush_row(); }

}  // namespace cctune::app
