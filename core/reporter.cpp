#include "core/reporter.hpp"

#include "core/error.hpp"

namespace cctune {

void Reporters::begin_sweep(long total_steps) {
  for (auto& r : list_) r->begin_sweep(total_steps);
}
void Reporters::begin_run(const RunResult& run) {
  for (auto& r : list_) r->begin_run(run);
}
void Reporters::begin_collective(Collective c, const std::string& context) {
  for (auto& r : list_) r->begin_collective(c, context);
}
void Reporters::measuring(long step, const std::string& label) {
  for (auto& r : list_) r->measuring(step, label);
}
void Reporters::point(const PointResult& p) {
  for (auto& r : list_) r->point(p);
}
void Reporters::screened(const PointResult& p) {
  for (auto& r : list_) r->screened(p);
}
void Reporters::end_collective() {
  for (auto& r : list_) r->end_collective();
}
void Reporters::run_timing(double duration_s, double startup_s) {
  for (auto& r : list_) r->run_timing(duration_s, startup_s);
}
void Reporters::fail_run(const std::string& reason) {
  for (auto& r : list_) r->fail_run(reason);
}
void Reporters::note(const std::string& line) {
  for (auto& r : list_) r->note(line);
}
void Reporters::finish(MetaStatus status) {
  for (auto& r : list_) r->finish(status);
}

void write_on_rank0(const std::function<void()>& write) {
  try {
    write();
  } catch (Error& e) {
    e.mark_rank_local();
    throw;
  }
}

}  // namespace cctune
