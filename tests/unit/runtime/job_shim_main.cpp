// `cctune __job-shim` without the rest of cctune, for the runtime tests: run_job_command starts
// it in place of cctune (JobRunRequest::shim), with the same arguments.
#include "runtime/job_shim.hpp"

int main(int argc, char** argv) { return cctune::runtime::job_shim_main(argc - 1, argv + 1); }
