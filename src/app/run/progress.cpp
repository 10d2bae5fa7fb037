#include "app/run/progress.hpp"

#include <unistd.h>

#include "core/text.hpp"
#include "core/units.hpp"

namespace cctune::app {

ProgressReporter::ProgressReporter(std::FILE* out)
    : out_(out), active_(::isatty(::fileno(out)) == 1), start_(std::chrono::steady_clock::now()) {}

void ProgressReporter::begin_sweep(long total_steps) {
  total_ = total_steps;
  start_ = std::chrono::steady_clock::now();
}

void ProgressReporter::measuring(long done, const std::string& label) {
  if (!active_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta = "ETA --";
  if (done > 0 && done <= total_) eta = "ETA " + format_duration(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done));
  std::fprintf(out_, "\r\033[K[%ld/%ld] %s  %s", done, total_, text::terminal_text(label).c_str(), eta.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressReporter::note(const std::string& line) {
  clear();
  std::fprintf(out_, "cctune: %s\n", text::terminal_text(line).c_str());  // group labels, failure reasons
}

void ProgressReporter::clear() {
  if (!active_ || !drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace cctune::app
