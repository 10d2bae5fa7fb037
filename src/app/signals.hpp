#pragma once
// SIGINT/SIGTERM during a sweep: remember the signal; the sweep stops at the next point
// boundary (agreed by all ranks), writes what it has, and exits 130/143.
namespace cctune::app {

void install_stop_handlers();
// 0 when no stop was requested, else the signal number.
int stop_signal();

}  // namespace cctune::app
