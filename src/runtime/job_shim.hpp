#pragma once
// `cctune __job-shim`: the small process between cctune and a user's job (verify --job, tune
// --job). cctune alone cannot keep the job's process tree: a job may put processes in new
// sessions (setsid), cctune may be SIGKILLed, and a job in cctune's session stops on SIGTTIN
// when it reads the terminal. The shim, started by runtime::run_job_command:
//   - asks for PR_SET_PDEATHSIG(SIGTERM) and starts nothing when its parent is already gone
//     (getppid() differs from --parent: cctune died before the prctl);
//   - is a session leader (cctune spawns it with POSIX_SPAWN_SETSID): the job has no
//     controlling terminal (opening /dev/tty fails with ENXIO, it never stops on SIGTTIN),
//     and stdin is /dev/null;
//   - is a child subreaper: every process the job starts stays its descendant, setsid'd
//     daemons and double forks included;
//   - runs the job in a process group of its own and reads its output through a pipe into
//     the log (runtime/bounded_log.hpp: the first and last --keep-bytes), so the job never
//     writes the log itself and nothing it leaves can grow it later;
//   - when the job ends, stops (SIGTTIN/SIGTTOU: it reads the terminal) or the shim gets
//     SIGTERM/SIGINT/SIGHUP (cctune's stop or timeout, or cctune's death), SIGKILLs the job's
//     group and every descendant until none is left, then reports on fd 3 in one JSON line:
//     {"type":"end","status":<wait status>,"stopped_by":<signal>,"leftovers_ended":N,
//      "output_bytes":N,"output_dropped_bytes":N}
//     or, when the job could not start, {"type":"spawn_error","errno":E}.
// PR_SET_PDEATHSIG fires when the *thread* that spawned the shim ends, so run_job_command
// must run on a thread that outlives the run (cctune's main thread).
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cctune::runtime {

inline constexpr const char* job_shim_command = "__job-shim";

// The shim's argv[1..] (argv[0] is the executable): __job-shim --parent PID --keep-bytes N -- JOB...
std::vector<std::string> job_shim_args(pid_t parent, std::uint64_t keep_bytes, const std::vector<std::string>& job_argv);

// The shim's body; argv[0] is "__job-shim". Returns its exit code (0 once it reported).
int job_shim_main(int argc, char** argv);

}  // namespace cctune::runtime
