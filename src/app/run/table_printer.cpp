#include "app/run/table_printer.hpp"

#include <string>

namespace cctune::app {
namespace {

void print_cells(std::FILE* out, const std::optional<PointResult>& p) {
  if (!p) {
    std::fprintf(out, "  %8s %7s %7s %6s %8s %8s", "-", "-", "-", "-", "-", "-");
    return;
  }
  if (p->status != PointStatus::Ok) {
    std::fprintf(out, "  %8s %7s %7s %6s %8s %8s", p->status == PointStatus::Skipped ? "skip" : "FAIL", "-", "-", "-", "-", "-");
    return;
  }
  const std::string wrong = p->wrong < 0 ? "N/A" : std::to_string(p->wrong);
  std::fprintf(out, "  %8.2f %7.2f %7.2f %6s %8.2f %8.2f", p->batch_us, p->algbw_GBps, p->busbw_GBps, wrong.c_str(), p->iter_us.median,
               p->iter_us.p99);
}

}  // namespace

void TablePrinter::header(Collective c, const std::string& context) {
  std::fprintf(out_, "#\n# %s  %s\n", to_string(c).c_str(), context.c_str());
  std::fprintf(out_, "# %10s %12s %8s %6s  %-47s  %-47s\n", "", "", "", "", "out-of-place", "in-place");
  const char* cols = "  %8s %7s %7s %6s %8s %8s";
  std::fprintf(out_, "# %10s %12s %8s %6s", "size", "count", "type", "redop");
  std::fprintf(out_, cols, "time", "algbw", "busbw", "#wrong", "med", "p99");
  std::fprintf(out_, cols, "time", "algbw", "busbw", "#wrong", "med", "p99");
  std::fprintf(out_, "\n# %10s %12s %8s %6s", "(B)", "(elements)", "", "");
  std::fprintf(out_, cols, "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)");
  std::fprintf(out_, cols, "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)");
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

void TablePrinter::row(const std::optional<PointResult>& oop, const std::optional<PointResult>& ip) {
  const PointResult& any = oop ? *oop : *ip;
  const std::string op = is_reduction(any.collective) ? to_string(any.op) : "none";
  std::fprintf(out_, "  %10llu %12llu %8s %6s", static_cast<unsigned long long>(any.size_bytes), static_cast<unsigned long long>(any.count),
               table_name(any.dtype).c_str(), op.c_str());
  print_cells(out_, oop);
  print_cells(out_, ip);
  // A forced configuration names itself; NCCL's own choice ("auto") prints nothing extra.
  const PointConfig& c = any.config;
  if (!c.is_default())
    std::fprintf(out_, "  %s%s", algo_proto_name(c.algo, c.proto).c_str(), c.channels ? ("/" + std::to_string(c.channels)).c_str() : "");
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

void TablePrinter::footer(double avg_busbw_GBps, long points) {
  std::fprintf(out_, "# Avg bus bandwidth    : %.3f GB/s over %ld points\n", avg_busbw_GBps, points);
  std::fflush(out_);
}

}  // namespace cctune::app
