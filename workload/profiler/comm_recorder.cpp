#include "workload/profiler/comm_recorder.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>

#include "workload/nccl_names.hpp"

namespace cctune::tuner {

std::uint64_t host_now_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

namespace {

// A call handle: 1 | shape index << 1 | recorder serial << 32. An index past the table, or
// another recorder's serial (a handle NCCL kept from an earlier call), names nothing.
constexpr unsigned serial_shift = 32;

std::uint64_t next_serial() noexcept {
  static std::atomic<std::uint64_t> serial{0};
  return (serial.fetch_add(1, std::memory_order_relaxed) + 1) & 0x7fffffffu;
}

}  // namespace

CommRecorder::CommRecorder(std::uint64_t comm_hash, int nranks, int nnodes, int rank, int* activation_mask,
                           std::size_t shape_capacity, std::size_t event_pool)
    : serial_(next_serial()), comm_hash_(comm_hash), nranks_(nranks), nnodes_(nnodes), rank_(rank), activation_mask_(activation_mask),
      table_(shape_capacity), pool_(event_pool), free_(event_pool) {
  for (std::size_t i = 0; i < event_pool; ++i) {
    pool_[i].owner = this;
    free_[i] = static_cast<std::uint32_t>(i);
  }
  free_count_ = event_pool;
}

ProfEvent* CommRecorder::acquire(ProfEvent::Kind kind) {
  if (free_count_ == 0) {
    ++events_dropped_;
    return nullptr;
  }
  ProfEvent* e = &pool_[free_[free_head_]];
  free_head_ = (free_head_ + 1) % free_.size();
  --free_count_;
  if (e->kind == ProfEvent::Kind::Call) fold(e);
  const std::uint32_t generation = e->generation + 1;
  *e = ProfEvent{};
  e->owner = this;
  e->kind = kind;
  e->generation = generation;
  e->queued = false;
  return e;
}

void CommRecorder::release(ProfEvent* e) {
  if (e->queued) return;
  e->queued = true;
  free_[(free_head_ + free_count_) % free_.size()] = static_cast<std::uint32_t>(e - pool_.data());
  ++free_count_;
}

// Adds a finished call's span to its shape, once.
void CommRecorder::fold(ProfEvent* call) {
  if (call->folded || !call->stats) return;
  call->folded = true;
  if (call->span_start_ns == 0 || call->span_stop_ns < call->span_start_ns) return;
  call->stats->add_duration(call->span_stop_ns - call->span_start_ns, call->timed_on_gpu);
}

void* CommRecorder::count_call(const ShapeKey& key, ShapeStats*& stats) {
  std::lock_guard lock(mutex_);
  const std::optional<std::size_t> index = table_.count(key);
  timeline_.record(index ? static_cast<std::uint32_t>(*index) : kUnrecordedShape, issue_ns());
  if (!index) return nullptr;
  stats = &table_.at(*index);
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(1u | *index << 1 | serial_ << serial_shift));
}

ProfEvent* CommRecorder::follow_call(const void* parent, int algo, int proto, int channels) {
  const auto h = reinterpret_cast<std::uintptr_t>(parent);
  if (!is_call_handle(parent) || h >> serial_shift != serial_) return nullptr;
  const std::size_t index = (h & 0xffffffffu) >> 1;
  std::lock_guard lock(mutex_);
  if (index >= table_.size()) return nullptr;
  return start_followed(&table_.at(index), algo, proto, channels);
}

ProfEvent* CommRecorder::start_call(const CallInfo& call) {
  std::lock_guard lock(mutex_);
  const std::optional<std::size_t> index = table_.count(call.key);
  timeline_.record(index ? static_cast<std::uint32_t>(*index) : kUnrecordedShape, issue_ns());
  return start_followed(index ? &table_.at(*index) : nullptr, call.algo, call.proto, call.channels);
}

ProfEvent* CommRecorder::start_followed(ShapeStats* stats, int algo, int proto, int channels) {
  if (stats && (algo >= 0 || channels > 0)) stats->add_applied(algo, proto, channels);
  ProfEvent* e = acquire(ProfEvent::Kind::Call);
  if (!e) return nullptr;
  e->stats = stats;
  e->folded = false;
  return e;
}

bool CommRecorder::owns(const void* handle) const noexcept {
  const auto* begin = reinterpret_cast<const unsigned char*>(pool_.data());
  const auto* end = reinterpret_cast<const unsigned char*>(pool_.data() + pool_.size());
  const auto* p = static_cast<const unsigned char*>(handle);
  return p >= begin && p < end && (p - begin) % sizeof(ProfEvent) == 0;
}

ProfEvent* CommRecorder::start_kernel_channel(ProfEvent* parent, std::uint64_t gpu_start_ns) {
  if (!parent || !owns(parent)) return nullptr;
  std::lock_guard lock(mutex_);
  if (parent->kind != ProfEvent::Kind::Call || parent->folded) return nullptr;
  ProfEvent* e = acquire(ProfEvent::Kind::KernelChannel);
  if (!e) return nullptr;
  e->parent = parent;
  e->parent_generation = parent->generation;
  e->channel_on_gpu = gpu_start_ns != 0;
  e->channel_start_ns = gpu_start_ns != 0 ? gpu_start_ns : host_now_ns();
  ++parent->open_channels;
  return e;
}

void CommRecorder::kernel_channel_stopped(ProfEvent* channel, std::uint64_t gpu_stop_ns) {
  std::lock_guard lock(mutex_);
  if (channel->kind != ProfEvent::Kind::KernelChannel || channel->queued) return;
  // A GPU stop only means something against a GPU start (both globaltimer).
  channel->channel_stop_ns = channel->channel_on_gpu && gpu_stop_ns != 0 ? gpu_stop_ns : host_now_ns();
}

void CommRecorder::stop(ProfEvent* e) {
  std::lock_guard lock(mutex_);
  if (e->queued) return;  // stopped twice: nothing more to do
  if (e->kind == ProfEvent::Kind::Call) {
    e->stopped = true;
    if (e->open_channels == 0) release(e);
    return;
  }
  ProfEvent* parent = e->parent;
  const bool same_call = parent && parent->generation == e->parent_generation && !parent->folded;
  if (same_call) {
    if (e->channel_stop_ns == 0) e->channel_stop_ns = e->channel_on_gpu ? 0 : host_now_ns();
    if (e->channel_stop_ns >= e->channel_start_ns && e->channel_stop_ns != 0) {
      parent->span_start_ns = parent->span_start_ns == 0 ? e->channel_start_ns : std::min(parent->span_start_ns, e->channel_start_ns);
      parent->span_stop_ns = std::max(parent->span_stop_ns, e->channel_stop_ns);
      parent->timed_on_gpu = parent->timed_on_gpu && e->channel_on_gpu;
    }
    if (parent->open_channels > 0) --parent->open_channels;
    if (parent->stopped && parent->open_channels == 0) release(parent);
  }
  release(e);
}

void CommRecorder::add_group(const ShapeKey* members, std::size_t n) {
  std::lock_guard lock(mutex_);
  groups_.add(members, n);
}

void CommRecorder::count_group_not_recorded() {
  std::lock_guard lock(mutex_);
  groups_.count_not_recorded();
}

workload::Communicator CommRecorder::snapshot(std::optional<std::uint64_t> job_steps) {
  workload::Communicator c;
  {
    std::lock_guard lock(mutex_);
    for (ProfEvent& e : pool_)
      if (e.kind == ProfEvent::Kind::Call && e.stopped && e.open_channels == 0) fold(&e);
    c = to_communicator(table_, comm_hash_, nranks_, nnodes_, rank_);
    add_groups(c, groups_, nranks_);
  }
  // The timeline is read without the lock (call_timeline.hpp), and the search, which may take
  // milliseconds over a full timeline, holds up neither NCCL's proxy thread nor new shapes.
  const std::vector<workload::TimedCall> calls = timeline_.ordered();
  const workload::StepFinding found =
      workload::find_step({&calls, timeline_.total(), job_steps, [this](std::uint32_t shape) { return shape_name(shape); }});
  c.cadence = found.cadence;
  if (!found.cadence) c.no_step = found.no_step;
  return c;
}

std::string CommRecorder::shape_name(std::uint32_t shape) {
  std::lock_guard lock(mutex_);
  if (shape >= table_.size()) return "a call of a shape not recorded (the shape table was full)";
  const ShapeKey& k = table_.at(shape).key;
  return workload::describe_shape(workload::make_shape({k.kind, k.collective}, k.dtype, std::nullopt, k.root, k.count, nranks_));
}

void CommRecorder::set_activation_mask(int mask) noexcept {
  if (activation_mask_) __atomic_store_n(activation_mask_, mask, __ATOMIC_RELAXED);
}

std::size_t CommRecorder::shapes() {
  std::lock_guard lock(mutex_);
  return table_.size();
}

std::uint64_t CommRecorder::calls_not_recorded() {
  std::lock_guard lock(mutex_);
  return table_.calls_not_recorded();
}

std::uint64_t CommRecorder::events_dropped() {
  std::lock_guard lock(mutex_);
  return events_dropped_;
}

}  // namespace cctune::tuner
