// A plain back-to-back MPI_Allreduce loop, the reference for bench/mpi_batch_vs_loop.sh.
// Deliberately shares no code with cctune. Per size: float32 sum, out-of-place; warm-up,
// then `reps` repetitions of: MPI_Barrier, MPI_Wtime, `iters` MPI_Allreduce calls,
// MPI_Wtime. Time per call = the repetition's time / iters, averaged over ranks; the median
// over repetitions is printed. `iters` is chosen once per size so that a repetition lasts
// about `--ms` milliseconds (agreed with MPI_MAX, so every rank makes the same calls).
// Many short repetitions (default 51 of 1 ms) and their median keep a busy machine's
// preemptions out of the number: on a 2-core VM shared with compilers, 2 ms loops were hit
// often enough (a few ms lost to another process every few ms of polling) to move the
// median 5x, 1 ms loops were not. The barrier's exit skew (~1 us) is 0.1 % of 1 ms.
//
//   mpi_allreduce_loop [--reps R] [--ms T] SIZE_BYTES...     prints CSV: size_bytes,time_us,iters
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double loop_seconds(const std::vector<float>& in, std::vector<float>& out, int count, long iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

double mean_over_ranks(double v) {
  double s = 0;
  int n = 1;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return s / n;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int reps = 51;
  double target_ms = 1;
  std::vector<long> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--ms" && i + 1 < argc) target_ms = std::atof(argv[++i]);
    else sizes.push_back(std::atol(a.c_str()));
  }
  if (sizes.empty() || reps < 1 || !(target_ms > 0)) {
    if (rank == 0) std::fprintf(stderr, "usage: mpi_allreduce_loop [--reps R] [--ms T] SIZE_BYTES...\n");
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) std::printf("size_bytes,time_us,iters\n");
  for (long bytes : sizes) {
    const int count = static_cast<int>(std::max(1L, bytes / static_cast<long>(sizeof(float))));
    std::vector<float> in(count, 1.0f), out(count);
    loop_seconds(in, out, count, 100);  // warm-up
    const double per_call = max_over_ranks(loop_seconds(in, out, count, 1000)) / 1000;
    const long iters = std::max(100L, static_cast<long>(target_ms * 1e-3 / std::max(per_call, 1e-9)));
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) times.push_back(mean_over_ranks(loop_seconds(in, out, count, iters)) / iters * 1e6);
    std::sort(times.begin(), times.end());
    if (rank == 0) std::printf("%ld,%.4f,%ld\n", static_cast<long>(count * sizeof(float)), times[times.size() / 2], iters);
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
