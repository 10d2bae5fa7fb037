#include "workload/profiler/workload_file.hpp"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "core/error.hpp"
#include "core/files.hpp"

namespace cctune::tuner {
namespace {

// Tries before giving up on a free name: each collision needs another process to have drawn
// the same 48 bits, so more than one in a row means something else is wrong.
constexpr int max_name_draws = 8;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: every input bit moves every output bit
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t fallback_bits() {
  timespec real{}, mono{};
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  const int on_stack = 0;  // its address differs between processes under ASLR
  std::uint64_t x = mix(static_cast<std::uint64_t>(real.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(real.tv_nsec));
  x = mix(x ^ (static_cast<std::uint64_t>(mono.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(mono.tv_nsec)));
  x = mix(x ^ static_cast<std::uint64_t>(::getpid()));
  return mix(x ^ reinterpret_cast<std::uintptr_t>(&on_stack));
}

}  // namespace

std::string random_file_tag() {
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits)) bits = fallback_bits();
  char tag[16];
  std::snprintf(tag, sizeof tag, "%012llx", static_cast<unsigned long long>(bits & 0xffffffffffffull));
  return tag;
}

WorkloadFile::WorkloadFile(std::string directory, std::string host, long pid, TagSource tags)
    : directory_(std::move(directory)), host_(std::move(host)), pid_(std::to_string(pid)), tags_(tags) {
  draw_name();
}

void WorkloadFile::draw_name() { path_ = directory_ + "/workload." + host_ + "." + pid_ + "." + tags_() + ".json"; }

void WorkloadFile::create_exclusively() {
  for (int draw = 0; draw < max_name_draws; ++draw) {
    try {
      NewFile reserved(path_, "");  // O_EXCL: never another process's file
      created_ = true;
      return;
    } catch (const UsageError&) {  // the name is taken
      draw_name();
    }
  }
  throw EnvironmentError("no free file name in " + directory_ + " after " + std::to_string(max_name_draws) + " tries (last " + path_ + ")",
                         "check what else writes workload.*.json files into CCTUNE_WORKLOAD");
}

void WorkloadFile::write(const std::string& content) {
  if (!created_) create_exclusively();
  write_file_atomically(path_, content);
}

}  // namespace cctune::tuner
