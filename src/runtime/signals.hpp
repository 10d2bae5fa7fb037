#pragma once
// SIGINT/SIGTERM/SIGHUP during a sweep or a job race: remember the signal; the sweep stops at
// the next point boundary (agreed by all ranks), writes what it has, and exits 130/143/129.
namespace cctune::runtime {

// SIGINT, SIGTERM and SIGHUP (a closed terminal; left ignored where the caller ignores it, as
// nohup does) request a stop. SIGPIPE is ignored: a closed stdout (`cctune ... | head -1`) makes
// writes fail, not the run end before it wrote its files.
void install_stop_handlers();
// 0 when no stop was requested, else the signal number.
int stop_signal();
// The signal a sweep reports once its ranks agreed to stop: this rank's own, or SIGTERM
// when only another rank was signalled (mpirun forwards SIGTERM to every rank anyway).
int agreed_stop_signal();
// The exit code of a sweep stopped by `signal`: exit_code::interrupted_sigint for SIGINT,
// exit_code::interrupted_sighup for SIGHUP, exit_code::interrupted_sigterm otherwise.
int exit_code_for_stop(int signal);

}  // namespace cctune::runtime
