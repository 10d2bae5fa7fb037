#pragma once
// RankComm for N ranks as threads of one process (gloo's test habit): lets the engine, the
// topology gather, the probes and the runtime be tested without mpirun. Collectives meet at
// a generation barrier; send/recv go through per-(from, to, tag) queues.
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "comm/rank_comm.hpp"

namespace cctune::testing {

class ThreadGroup {
 public:
  explicit ThreadGroup(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}
  int size() const { return size_; }

  // Every rank deposits its value; once all have, each gets all values in rank order.
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock lock(mutex_);
    const long round = round_;
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == size_) {
      result_ = slots_;
      arrived_ = 0;
      ++round_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return round_ != round; });
    }
    return result_;
  }

  void post(int from, int to, int tag, const std::string& data) {
    std::lock_guard lock(mutex_);
    mailbox_[{from, to, tag}].push_back(data);
    cv_.notify_all();
  }

  std::string take(int from, int to, int tag) {
    std::unique_lock lock(mutex_);
    auto& queue = mailbox_[{from, to, tag}];
    cv_.wait(lock, [&] { return !queue.empty(); });
    std::string d = std::move(queue.front());
    queue.pop_front();
    return d;
  }

 private:
  int size_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> slots_;
  std::vector<std::string> result_;
  int arrived_ = 0;
  long round_ = 0;
  std::map<std::tuple<int, int, int>, std::deque<std::string>> mailbox_;
};

class ThreadComm : public RankComm {
 public:
  ThreadComm(ThreadGroup& group, int rank) : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.size(); }
  void barrier() override { group_.exchange(rank_, {}); }
  void allreduce_sum(std::span<double> v) override {
    reduce(v, [](double a, double b) { return a + b; });
  }
  void allreduce_max(std::span<double> v) override {
    reduce(v, [](double a, double b) { return a > b ? a : b; });
  }
  void broadcast(std::string& data, int root) override {
    data = group_.exchange(rank_, data)[static_cast<std::size_t>(root)];
  }
  std::vector<std::string> allgather(const std::string& mine) override { return group_.exchange(rank_, mine); }
  void send(const std::string& data, int peer, int tag) override { group_.post(rank_, peer, tag, data); }
  std::string recv(int peer, int tag) override { return group_.take(peer, rank_, tag); }

 private:
  template <typename F>
  void reduce(std::span<double> v, F op) {
    std::string mine(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
    const auto all = group_.exchange(rank_, mine);
    for (std::size_t i = 0; i < v.size(); ++i) {
      double acc = 0;
      for (std::size_t r = 0; r < all.size(); ++r) {
        double x;
        std::memcpy(&x, all[r].data() + i * sizeof(double), sizeof x);
        acc = r == 0 ? x : op(acc, x);
      }
      v[i] = acc;
    }
  }
  ThreadGroup& group_;
  int rank_;
};

// Runs fn(comm) on `n` threads, one per rank, and joins them. Returns each rank's result
// (when fn returns one) or rethrows the first rank's exception.
template <class Fn>
auto run_ranks(int n, Fn fn) {
  using R = decltype(fn(std::declval<RankComm&>()));
  ThreadGroup group(n);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  std::conditional_t<std::is_void_v<R>, int, std::vector<R>> results{};
  if constexpr (!std::is_void_v<R>) results.resize(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      ThreadComm comm(group, r);
      try {
        if constexpr (std::is_void_v<R>) fn(comm);
        else results[static_cast<std::size_t>(r)] = fn(comm);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if constexpr (!std::is_void_v<R>) return results;
}

}  // namespace cctune::testing
