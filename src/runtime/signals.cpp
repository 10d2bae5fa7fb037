#include "runtime/signals.hpp"

#include <csignal>

#include "core/error.hpp"

namespace cctune::runtime {
namespace {
volatile std::sig_atomic_t g_stop_signal = 0;  // the only state a signal handler may touch
extern "C" void on_stop(int sig) { g_stop_signal = sig; }
}  // namespace

void install_stop_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction hup = {};
  if (sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return g_stop_signal; }

int agreed_stop_signal() { return g_stop_signal != 0 ? g_stop_signal : SIGTERM; }

int exit_code_for_stop(int signal) {
  if (signal == SIGINT) return exit_code::interrupted_sigint;
  return signal == SIGHUP ? exit_code::interrupted_sighup : exit_code::interrupted_sigterm;
}

}  // namespace cctune::runtime
