// Preloaded into `mpirun -np 2 cctune ...` by stop_latency.py's probe_finalize scenario: the rank
// named by CCTUNE_TEST_FINALIZE_DELAY_RANK calls PMIx_Finalize (inside MPI_Finalize, after its
// fence) a second late, and touches CCTUNE_TEST_FINALIZE_DELAY_MARK to say it did. That is the
// race behind review F14 (2026-11-28), always lost: the peer has finished MPI_Finalize and exited
// non-zero, so mpirun aborts the job and no longer serves this rank's PMIx_Finalize. Where Open
// MPI uses a PMIx of its own (renamed symbols) nothing is interposed, no mark is left, and the
// scenario skips.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int PMIx_Finalize(const void* info, size_t ninfo) {
  int (*real)(const void*, size_t) = (int (*)(const void*, size_t))dlsym(RTLD_NEXT, "PMIx_Finalize");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  const char* delayed = getenv("CCTUNE_TEST_FINALIZE_DELAY_RANK");
  const char* mark = getenv("CCTUNE_TEST_FINALIZE_DELAY_MARK");
  if (rank && delayed && strcmp(rank, delayed) == 0) {
    if (mark) close(open(mark, O_WRONLY | O_CREAT, 0644));
    usleep(1000000);
  }
  return real ? real(info, ninfo) : 0;
}
