#pragma once
// Process-wide context of one cctune invocation: argv, host name, and the MPI launcher
// (initialised on first use, so commands that need no MPI never start it).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "comm/rank_comm.hpp"
#include "core/error.hpp"
#include "app/cli/seams.hpp"
#include "core/job_layout.hpp"

namespace cctune::app {

class Session {
 public:
  // `seams`: empty in production (app/cli/seams.hpp); a test build of cctune fills some.
  Session(int argc, char** argv, Seams seams = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::vector<std::string>& argv() const { return argv_; }
  const std::string& hostname() const { return hostname_; }
  const std::string& executable() const { return executable_; }  // absolute path of cctune
  // Initialises MPI (a singleton when not launched by mpirun/srun) on first call. While a
  // CommScope lives, the scoped part of the job instead.
  RankComm& comm();
  // The whole job, whatever is scoped.
  RankComm& world();
  bool mpi_started() const { return static_cast<bool>(comm_); }
  // Collective on first call per communicator (comm(), scoped or not): every rank's host,
  // gathered once and kept, since every part of a sweep needs it.
  const JobLayout& layout();
  int rank() { return world().rank(); }

  // Makes comm() a part of the job (a split of the world) for its lifetime, so that the
  // sweeps, which take their ranks from comm(), run unchanged on one node or one node pair
  // while other parts run theirs at the same time (cctune diagnose). Scopes do not nest.
  class CommScope {
   public:
    CommScope(Session& session, RankComm& part);
    ~CommScope();
    CommScope(const CommScope&) = delete;
    CommScope& operator=(const CommScope&) = delete;

   private:
    Session& session_;
  };
  const Seams& seams() const { return seams_; }
  ErrorSite site();
  // Ends every rank of the job after an error only some ranks saw (MPI_Abort).
  [[noreturn]] void abort_job(int code);
  // After an error every rank is meant to have seen: if the job has not shut down within
  // `seconds` (some rank is still waiting in a collective after all), this process exits
  // with `code` without MPI_Finalize, and mpirun then ends the other ranks.
  void bound_shutdown(int code, int seconds);
  // After a multi-rank command returned `code` != 0 (every rank agreed on it and wrote its files):
  // should MPI_Finalize not return within `after`, this process says so and exits with `code`.
  // One rank's non-zero exit makes mpirun abort the job, and a peer still in MPI_Finalize then
  // waits for a server that no longer answers, until mpirun's SIGKILL about 2 s later (review
  // F14: ranks stopped by SIGTERM in the probe, one of them ended by mpirun 2-3 s later).
  void bound_finalize(int code, std::chrono::milliseconds after);

 private:
  std::vector<std::string> argv_;
  std::string hostname_;
  std::string executable_;
  std::unique_ptr<RankComm> comm_;
  RankComm* scoped_ = nullptr;  // set by a CommScope
  Seams seams_;
  std::optional<JobLayout> layout_;  // of comm(); dropped when a CommScope starts or ends
};

}  // namespace cctune::app
