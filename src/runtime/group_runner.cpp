#include "runtime/group_runner.hpp"

#include <poll.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <sstream>

#include "comm/rank_comm_typed.hpp"
#include "core/error.hpp"
#include "core/error_record.hpp"
#include "core/text.hpp"
#include "runtime/line_channel.hpp"
#include "runtime/orphans.hpp"
#include "runtime/point_gate.hpp"
#include "runtime/supervisor_tick.hpp"
#include "runtime/worker_plan.hpp"
#include "runtime/worker_process.hpp"

namespace cctune::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// How bad a local failure is, for choosing the reason every supervisor reports: a worker
// that crashed or said why comes before workers that merely went silent (usually because
// their peers died), and an interrupt before nothing at all.
enum Priority { kCause = 0, kTimeout = 1, kInterrupt = 2, kNone = 9 };

struct Tracked {
  LocalWorker spec;
  std::string log_path;
  std::unique_ptr<WorkerProcess> proc;
  std::unique_ptr<LineReader> reader;
  Clock::time_point last_message;
  long last_point = -1;
  bool done = false;
  bool ready = false;
};

class Supervisor {
 public:
  Supervisor(RankComm& comm, const ConfigGroup& group, const std::vector<PointSpec>& points, const GroupSettings& s,
             const GroupCallbacks& cb)
      : comm_(comm), group_(group), points_(points), settings_(s), cb_(cb) {}

  GroupOutcome run(const std::vector<LocalWorker>& workers) {
    start_ = Clock::now();
    // A worker that dies leaves a broken pipe; writing to it must fail, not kill us.
    std::signal(SIGPIPE, SIG_IGN);
    adopt_orphans();  // a worker's setsid'd children come back to us when it dies
    spared_ = child_processes();  // ours before the group (an MPI daemon, say): not the group's to end
    gate_.emplace(points_, workers.empty() ? 1 : workers.front().spec.nranks);
    std::string spawn_error;
    try {
      spawn_all(workers);
    } catch (const Error& e) {
      spawn_error = e.describe();
      fail(kCause, "on " + host() + ": " + spawn_error);
    }
    for (;;) {
      const auto tick_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(settings_.tick_s));
      pump_until(tick_end);
      check_workers();
      if (cb_.stop_requested && cb_.stop_requested()) fail(kInterrupt, "interrupted by a signal");
      if (seconds(Clock::now() - start_) > settings_.group_timeout_s)
        fail(kTimeout, "group " + group_.label + " passed its deadline of " + fmt_seconds(settings_.group_timeout_s) +
                           " (--group-timeout) on " + host() + where_workers_are());
      if (auto outcome = agree()) return *outcome;
    }
  }

 private:
  std::string host() const { return local_host_; }

  void spawn_all(const std::vector<LocalWorker>& workers) {
    local_host_ = workers.empty() ? "" : workers.front().spec.host;
    for (const auto& w : workers) {
      Tracked t;
      t.spec = w;
      t.log_path = settings_.log_dir + "/" + group_.label + ".r" + std::to_string(w.spec.rank) + ".log";
      std::remove(t.log_path.c_str());
      SpawnRequest req;
      req.executable = settings_.executable;
      req.args = {"__worker", "--log", t.log_path};
      std::map<std::string, std::string> env = group_.env;
      for (const auto& [k, v] : w.env) env[k] = v;
      req.env = worker_environment(settings_.base_env, env);
      req.log_path = t.log_path;
      t.proc = std::make_unique<WorkerProcess>(WorkerProcess::spawn(req));
      t.reader = std::make_unique<LineReader>(t.proc->message_fd());
      t.last_message = Clock::now();
      write_line(t.proc->stdin_fd(), text::dump_json(to_json(w.spec)));
      workers_.push_back(std::move(t));
    }
  }

  std::string who(const Tracked& t) const {
    return "worker rank " + std::to_string(t.spec.spec.rank) + " (host " + t.spec.spec.host + ", GPU " +
           std::to_string(t.spec.spec.device) + ")";
  }

  std::string point_text(long p) const {
    if (p < 0) return "before its first point (during start-up or NCCL init)";
    std::string d = "at point " + std::to_string(p);
    if (p < static_cast<long>(points_.size())) d += " (" + describe(points_[static_cast<std::size_t>(p)]) + ")";
    return d;
  }

  std::string where_workers_are() const {
    long lo = -1;
    for (const auto& t : workers_) lo = lo < 0 ? t.last_point : std::min(lo, t.last_point);
    return workers_.empty() ? "" : ", workers " + point_text(lo);
  }

  std::string with_log(const Tracked& t, std::string text) const {
    const std::string tail = log_tail(t.log_path, 3);
    if (!tail.empty()) text += "; log " + t.log_path + ": " + tail;
    return text;
  }

  // `kind` other than Failure: the worker's own one-line error, which aborts the sweep.
  void fail(Priority p, const std::string& reason, ErrorKind kind = ErrorKind::Failure, const std::string& fix = {}) {
    if (p >= priority_) return;  // keep the most telling local reason
    priority_ = p;
    reason_ = text::sanitize_utf8(reason);  // worker output and log tails may hold any bytes
    kind_ = kind;
    fix_ = text::sanitize_utf8(fix);
  }

  // Never throws: a message with a missing or mistyped field fails the group, naming the
  // worker, rather than ending the supervisor with results.json left "running".
  void handle(Tracked& t, const std::string& line) {
    t.last_message = Clock::now();
    try {
      handle_message(t, decode(line));
    } catch (const Error& e) {
      if (e.rank_local()) throw;  // rank 0's results file failed: the job ends (main.cpp)
      fail(kCause, who(t) + ": " + e.what_only());
    } catch (const std::exception& e) {
      fail(kCause, who(t) + " sent a malformed message (" + e.what() + "): " + text::truncate_utf8(line, 200), ErrorKind::Failure,
           "supervisor and worker must be the same cctune build");
    }
  }

  // Fields are read with their types checked (.at().get<T>() throws on a wrong type).
  void handle_message(Tracked& t, const Message& m) {
    switch (m.type) {
      case MessageType::Hello:
        if (hello_.is_null()) hello_ = m.body;
        break;
      case MessageType::Uid: uid_ = m.body.at("uid").get<std::string>(); break;
      case MessageType::Ready: t.ready = true; break;
      case MessageType::Progress:
        t.last_point = message_point(m);
        if (t.spec.spec.rank == 0 && cb_.on_progress) cb_.on_progress(t.last_point);
        break;
      case MessageType::Point: {
        if (refused_) break;  // nothing from a group that sent a forged point is recorded any more
        const long point = message_point(m);
        const nlohmann::json& result = m.body.at("result");
        if (!result.is_object()) throw RuntimeFailure("point message whose result is not an object");
        PointResult admitted;
        try {
          admitted = gate_->admit(t.spec.spec.rank, t.last_point, point, result);
        } catch (...) {
          refused_ = true;
          throw;
        }
        if (cb_.on_point) cb_.on_point(point, admitted);
        break;
      }
      case MessageType::Done: t.done = true; break;
      case MessageType::Error: {
        const ErrorRecord error = error_record_from_json(m.body).value_or(ErrorRecord{ErrorKind::Failure, "(no message)", {}, {}});
        if (error.kind != ErrorKind::Failure)
          fail(kCause, error.message, error.kind, error.fix);  // the user's problem: said as the worker said it
        else
          fail(kCause, with_log(t, who(t) + " failed " + point_text(t.last_point) + ": " + error.message));
        break;
      }
    }
  }

  void note_overlong(Tracked& t) {
    if (t.reader->overlong())
      fail(kCause, who(t) + " sent a line longer than " + std::to_string(t.reader->max_line()) + " bytes; it is no longer read");
  }

  // Reads worker messages until `until`; returns early only when nothing is left to read.
  void pump_until(Clock::time_point until) {
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<Tracked*> owners;
      for (auto& t : workers_)
        if (!t.reader->eof()) {
          fds.push_back({t.reader->fd(), POLLIN, 0});
          owners.push_back(&t);
        }
      const double left = seconds(until - Clock::now());
      if (left <= 0) return;
      if (fds.empty()) {
        poll(nullptr, 0, static_cast<int>(left * 1000) + 1);
        return;
      }
      const int n = poll(fds.data(), fds.size(), static_cast<int>(left * 1000) + 1);
      if (n <= 0) continue;
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        std::vector<std::string> lines;
        owners[i]->reader->read_available(lines);
        for (const auto& l : lines) handle(*owners[i], l);
        note_overlong(*owners[i]);
      }
    }
  }

  void check_workers() {
    const auto now = Clock::now();
    for (auto& t : workers_) {
      if (t.proc->poll_exit()) {
        // Drain what it wrote before exiting (its last point, its error message): all of it
        // is in the pipe now (no more than the pipe holds, or it would not have exited), so
        // one read takes it. Not until end-of-file: a process it started may hold fd 3.
        if (!t.reader->eof()) {
          std::vector<std::string> lines;
          t.reader->read_available(lines);
          for (const auto& l : lines) handle(t, l);
          note_overlong(t);
          t.reader->close_reading();
        }
        if (!t.proc->exited_ok())
          fail(kCause, with_log(t, who(t) + " " + describe_wait_status(*t.proc->status()) + " " + point_text(t.last_point)));
        else if (!t.done)
          fail(kCause, with_log(t, who(t) + " exited without finishing, " + point_text(t.last_point)));
        continue;
      }
      if (t.done) continue;  // waiting for its release, silent by design
      const double silent = seconds(now - t.last_message);
      if (silent > settings_.point_timeout_s)
        fail(kTimeout, with_log(t, who(t) + " sent nothing for " + fmt_seconds(silent) + " (--point-timeout " +
                                       fmt_seconds(settings_.point_timeout_s) + ") " + point_text(t.last_point)));
    }
  }

  // Done: said so, and still running (waiting for release) or exited cleanly.
  bool all_done() const {
    for (const auto& t : workers_)
      if (!t.done || (t.proc->status() && !t.proc->exited_ok())) return false;
    return true;
  }

  // Every worker of the group, on every supervisor, is done: let them exit (a closed input
  // is their release), and reap them; one that does not leave within a few seconds is killed.
  void release_workers() {
    for (auto& t : workers_) t.proc->close_stdin();
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    for (auto& t : workers_)
      while (!t.proc->poll_exit() && Clock::now() < deadline) poll(nullptr, 0, 5);
  }

  // SIGKILL to every worker still running (and to orphans they left), then one bounded wait
  // for all of them together. Those SIGKILL did not end in time are abandoned: the sweep goes
  // on without them. Collective: every supervisor learns of every stuck worker.
  std::string end_workers() {
    for (auto& t : workers_) t.proc->send_kill();
    const auto deadline = Clock::now() + kKillWait;
    std::string stuck;
    std::vector<pid_t> spare = spared_;
    for (auto& t : workers_)
      if (!t.proc->reap_until(deadline)) {
        stuck += (stuck.empty() ? "" : "; ") + who(t) + " did not exit after SIGKILL (pid " + std::to_string(t.proc->pid()) +
                 ", abandoned: stuck in the kernel, e.g. a GPU driver or a hung file system)";
        spare.push_back(t.proc->pid());
      }
    end_children(spare, Clock::now() + kKillWait);
    std::string all;
    const auto each = comm_.allgather(stuck);
    for (std::size_t r = 0; r < each.size(); ++r)
      if (!each[r].empty()) all += (all.empty() ? "" : "; ") + (each.size() > 1 ? "supervisor rank " + std::to_string(r) + ": " : "") + each[r];
    return all;
  }

  std::optional<GroupOutcome> agree() {
    const SupervisorTick mine{static_cast<int>(priority_), ErrorRecord{kind_, reason_, fix_, {}}, all_done(), uid_sent_ ? "" : uid_};
    const std::vector<SupervisorTick> all = allgather_as(comm_, mine);  // reasons hold worker text: not always UTF-8
    std::string uid;
    bool done = true;
    int best = kNone, best_rank = -1, failing = 0;
    for (std::size_t r = 0; r < all.size(); ++r) {
      const SupervisorTick& t = all[r];
      if (!t.uid.empty()) uid = t.uid;
      done = done && t.done;
      if (t.priority != kNone) ++failing;
      if (t.priority < best) {
        best = t.priority;
        best_rank = static_cast<int>(r);
      }
    }
    if (!uid.empty() && !uid_sent_) {
      const std::string line = encode(uid_message(uid));
      for (auto& t : workers_)
        if (t.proc->stdin_fd() >= 0) write_line(t.proc->stdin_fd(), line);
      uid_sent_ = true;
    }
    if (best != kNone) {
      const std::string stuck = end_workers();
      GroupOutcome o;
      o.hello = hello_;
      const ErrorRecord& error = all[static_cast<std::size_t>(best_rank)].error;
      const ErrorKind kind = error.kind;
      o.status = best == kInterrupt ? GroupStatus::Interrupted : kind != ErrorKind::Failure ? GroupStatus::Aborted : GroupStatus::Failed;
      o.reason = error.message;
      // A worker's usage/environment error is the user's one-line message as it stands.
      if (all.size() > 1 && o.status != GroupStatus::Aborted) o.reason = "supervisor rank " + std::to_string(best_rank) + ": " + o.reason;
      if (failing > 1) o.reason += " [" + std::to_string(failing - 1) + " other supervisor(s) also reported a failure]";
      o.error_kind = kind;
      o.error_fix = error.fix;
      if (!stuck.empty()) o.reason += "; " + stuck;
      return o;
    }
    if (done) {
      release_workers();
      GroupOutcome o;
      o.hello = hello_;
      if (const std::string stuck = end_workers(); !stuck.empty()) {
        o.status = GroupStatus::Failed;
        o.reason = stuck;
      }
      return o;
    }
    return std::nullopt;
  }

  RankComm& comm_;
  const ConfigGroup& group_;
  const std::vector<PointSpec>& points_;
  const GroupSettings& settings_;
  const GroupCallbacks& cb_;
  std::deque<Tracked> workers_;
  std::string local_host_;
  Clock::time_point start_;
  Priority priority_ = kNone;
  std::string reason_, fix_;
  ErrorKind kind_ = ErrorKind::Failure;
  std::string uid_;
  bool uid_sent_ = false;
  nlohmann::json hello_;
  std::optional<PointGate> gate_;
  std::vector<pid_t> spared_;
  bool refused_ = false;
};

}  // namespace

std::string to_string(GroupStatus s) {
  switch (s) {
    case GroupStatus::Ok: return "ok";
    case GroupStatus::Failed: return "failed";
    case GroupStatus::Interrupted: return "interrupted";
    case GroupStatus::Aborted: return "failed";
  }
  return "failed";
}

GroupOutcome run_group(RankComm& comm, const ConfigGroup& group, const std::vector<LocalWorker>& workers,
                       const std::vector<PointSpec>& points, const GroupSettings& settings, const GroupCallbacks& callbacks) {
  Supervisor s(comm, group, points, settings, callbacks);
  return s.run(workers);
}

}  // namespace cctune::runtime
