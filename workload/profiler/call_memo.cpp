#include "workload/profiler/call_memo.hpp"

#include <cstring>

#include "workload/profiler/hot_path.hpp"

namespace cctune::tuner {
namespace {

// `text` into `out` with its NUL; false when it does not fit (or is null).
bool copy_name(const char* text, char (&out)[MemoNames::bytes]) noexcept {
  if (!text) return false;
  const std::size_t n = strnlen(text, MemoNames::bytes);
  if (n == MemoNames::bytes) return false;
  std::memcpy(out, text, n + 1);
  return true;
}

}  // namespace

CCTUNE_HOT const MemoCall* CallMemo::find(const CommRecorder* recorder, std::uint64_t serial, const char* func, const char* dtype,
                               std::size_t count, int root) const noexcept {
  for (std::size_t i = 0; i < size; ++i) {
    const MemoCall& c = calls_[i];
    if (c.recorder == recorder && c.count == count && c.func == func && c.dtype == dtype && c.root == root && c.serial == serial &&
        std::strncmp(func, names_[i].func, MemoNames::bytes) == 0 && std::strncmp(dtype, names_[i].dtype, MemoNames::bytes) == 0)
      return &c;
  }
  return nullptr;
}

void CallMemo::remember(const MemoCall& call) noexcept {
  MemoNames names;
  if (!copy_name(call.func, names.func) || !copy_name(call.dtype, names.dtype)) return;
  calls_[next_] = call;
  names_[next_] = names;
  next_ = (next_ + 1) % size;
}

}  // namespace cctune::tuner
