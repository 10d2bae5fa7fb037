#pragma once
// Processes a worker starts that leave its process group (setsid) escape the group-wide
// SIGKILL and PR_SET_PDEATHSIG, and would outlive the sweep holding a GPU. The supervisor
// makes itself a child subreaper, so that such orphans become its own children when their
// worker dies, and ends them after each group.
#include <sys/types.h>

#include <chrono>
#include <vector>

namespace cctune::runtime {

// prctl(PR_SET_CHILD_SUBREAPER): orphans of this process's descendants are reparented to it.
// Idempotent; harmless where the call fails (old kernels): nothing is adopted then.
void adopt_orphans();

// This process's children (all of them: workers not yet reaped and adopted orphans).
std::vector<pid_t> child_processes();

// This process's descendants that still run (zombies left out), parents before their children.
// Read from /proc at one moment: a process forked after the read is missed, so a caller that
// kills what it finds repeats until a read finds nothing (the job shim, runtime/job_shim.hpp).
std::vector<pid_t> live_descendants();

// SIGKILL to every child of this process but `spare`, then reaps them until `deadline`
// (polled). Returns the number left unreaped (unkillable ones are abandoned, not waited for);
// `ended`, when given, is set to how many it found and killed.
int end_children(const std::vector<pid_t>& spare, std::chrono::steady_clock::time_point deadline, int* ended = nullptr);

}  // namespace cctune::runtime
