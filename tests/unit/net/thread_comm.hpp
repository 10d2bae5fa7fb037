#pragma once
// RankComm for N threads in one process (the net tests' own; gloo-style in-memory
// rendezvous). Collectives meet at a generation barrier; send/recv go through
// per-(from, to, tag) queues.
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "collectives/rank_comm.hpp"

namespace cctune::net::test {

class ThreadWorld {
 public:
  explicit ThreadWorld(int n) : n_(n), slots_(static_cast<std::size_t>(n)) {}
  int size() const { return n_; }

  // Every rank deposits `mine`; returns all deposits once all have arrived.
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock lk(mu_);
    const long gen = generation_;
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == n_) {
      result_ = slots_;
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lk, [&] { return generation_ != gen; });
    }
    return result_;
  }
  void send(int from, int to, int tag, const std::string& data) {
    std::lock_guard lk(mu_);
    queues_[{from, to, tag}].push_back(data);
    cv_.notify_all();
  }
  std::string recv(int from, int to, int tag) {
    std::unique_lock lk(mu_);
    auto& q = queues_[{from, to, tag}];
    cv_.wait(lk, [&] { return !q.empty(); });
    std::string s = std::move(q.front());
    q.pop_front();
    return s;
  }

 private:
  int n_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  long generation_ = 0;
  std::vector<std::string> slots_, result_;
  std::map<std::tuple<int, int, int>, std::deque<std::string>> queues_;
};

class ThreadComm : public RankComm {
 public:
  ThreadComm(ThreadWorld& w, int rank) : w_(w), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return w_.size(); }
  void barrier() override { w_.exchange(rank_, {}); }
  void allreduce_sum(std::span<double> v) override { reduce(v, [](double a, double b) { return a + b; }); }
  void allreduce_max(std::span<double> v) override { reduce(v, [](double a, double b) { return a > b ? a : b; }); }
  void broadcast(std::string& data, int root) override { data = w_.exchange(rank_, data)[static_cast<std::size_t>(root)]; }
  std::vector<std::string> allgather(const std::string& mine) override { return w_.exchange(rank_, mine); }
  void send(const std::string& data, int peer, int tag) override { w_.send(rank_, peer, tag, data); }
  std::string recv(int peer, int tag) override { return w_.recv(peer, rank_, tag); }

 private:
  void reduce(std::span<double> v, const std::function<double(double, double)>& op) {
    const std::string mine(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
    const auto all = w_.exchange(rank_, mine);
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
  ThreadWorld& w_;
  int rank_;
};

// Runs fn(comm) on n threads; returns each rank's result or rethrows the first exception.
template <class Fn>
auto run_ranks(int n, Fn fn) {
  using R = decltype(fn(std::declval<RankComm&>()));
  ThreadWorld world(n);
  std::vector<R> results(static_cast<std::size_t>(n));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      ThreadComm comm(world, r);
      try {
        results[static_cast<std::size_t>(r)] = fn(comm);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return results;
}

}  // namespace cctune::net::test
