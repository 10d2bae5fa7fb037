#include "app/cli/session.hpp"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "comm/mpi_rank_comm.hpp"

namespace cctune::app {
namespace {

std::string this_host() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string this_executable(const char* argv0) {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) return p.string();
  return std::filesystem::absolute(argv0, ec).string();
}

// MPI_Init plus the RankComm over MPI_COMM_WORLD, torn down in reverse order.
class WorldComm : public MpiRankComm {
 public:
  WorldComm(std::unique_ptr<MpiRuntime> runtime) : MpiRankComm(MPI_COMM_WORLD), runtime_(std::move(runtime)) {}

 private:
  std::unique_ptr<MpiRuntime> runtime_;
};

}  // namespace

Session::Session(int argc, char** argv, Seams seams)
    : argv_(argv, argv + argc), hostname_(this_host()), executable_(this_executable(argv[0])), seams_(std::move(seams)) {}

Session::~Session() = default;

RankComm& Session::comm() { return scoped_ ? *scoped_ : world(); }

Session::CommScope::CommScope(Session& session, RankComm& part) : session_(session) {
  if (session.scoped_) throw Error("internal: communicator scopes do not nest");
  session.world();  // MPI runs before any part of it exists
  session.scoped_ = &part;
  session.layout_.reset();
}

Session::CommScope::~CommScope() {
  session_.scoped_ = nullptr;
  session_.layout_.reset();
}

const JobLayout& Session::layout() {
  RankComm& c = comm();
  if (!layout_) layout_ = JobLayout::from_hosts(c.allgather(hostname_), c.rank());
  return *layout_;
}

RankComm& Session::world() {
  if (!comm_) comm_ = std::make_unique<WorldComm>(std::make_unique<MpiRuntime>(nullptr, nullptr));
  return *comm_;
}

ErrorSite Session::site() {
  ErrorSite s;
  s.host = hostname_;
  if (comm_) s.rank = comm_->rank();
  return s;
}

void Session::bound_shutdown(int code, int seconds) {
  std::thread([code, seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    static const char msg[] = "cctune: error: the other ranks did not stop after the error above; ending the job\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    std::_Exit(code);
  }).detach();
}

void Session::bound_finalize(int code, std::chrono::milliseconds after) {
  if (code == 0 || !comm_ || comm_->size() < 2) return;
  std::fflush(nullptr);  // what the command printed is out before any _Exit
  const std::string msg = "cctune: rank " + std::to_string(world().rank()) + ": MPI_Finalize did not return within " +
                          std::to_string(after.count()) + " ms of the job's exit " + std::to_string(code) +
                          " (mpirun stops serving a job it aborts); exiting\n";
  std::thread([code, after, msg] {
    std::this_thread::sleep_for(after);
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg.data(), msg.size());
    std::_Exit(code);
  }).detach();
}

void Session::abort_job(int code) {
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace cctune::app
