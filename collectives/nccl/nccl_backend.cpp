#include "collectives/nccl/nccl_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

#include "collectives/nccl/device_batch.hpp"
#include "core/units.hpp"

namespace cctune::nccl_detail {

ncclDataType_t nccl_dtype(DType t) {
  switch (t) {
    case DType::Int8: return ncclInt8;
    case DType::Uint8: return ncclUint8;
    case DType::Int32: return ncclInt32;
    case DType::Uint32: return ncclUint32;
    case DType::Int64: return ncclInt64;
    case DType::Uint64: return ncclUint64;
    case DType::Float16: return ncclFloat16;
    case DType::Float32: return ncclFloat32;
    case DType::Float64: return ncclFloat64;
    case DType::BFloat16: return ncclBfloat16;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DType::Float8e4m3: return ncclFloat8e4m3;
    case DType::Float8e5m2: return ncclFloat8e5m2;
#else
    case DType::Float8e4m3:
    case DType::Float8e5m2: break;  // unsupported_reason() refuses them first
#endif
  }
  throw RuntimeFailure("unknown dtype " + std::to_string(static_cast<int>(t)));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return ncclSum;
    case ReduceOp::Prod: return ncclProd;
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Min: return ncclMin;
    case ReduceOp::Avg: return ncclAvg;
  }
  throw RuntimeFailure("unknown reduction op " + std::to_string(static_cast<int>(op)));
}

void check_buffers_fit(int device, std::uint64_t send_bytes, std::uint64_t recv_bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CCTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t need = send_bytes + recv_bytes;
  if (need + kNcclHeadroomBytes <= free_bytes) return;
  throw EnvironmentError("the largest point needs " + format_size(need) + " of GPU memory (send " +
                             format_size(send_bytes) + " + receive " + format_size(recv_bytes) + ") plus " +
                             format_size(kNcclHeadroomBytes) + " for NCCL, but GPU " + std::to_string(device) +
                             " has " + format_size(free_bytes) + " free of " + format_size(total_bytes),
                         "lower --max-bytes (-e), or free GPU memory (nvidia-smi lists other processes)");
}

int graph_ops_per_replay(int n) {
  if (n <= 1) return 1;
  const int min_replays = std::min(n, 5);
  for (int k = n / min_replays; k > 1; --k)
    if (n % k == 0) return k;
  return 1;
}

NcclBackend::NcclBackend(std::shared_ptr<NcclContext> ctx, bool graph, std::uint64_t send_bytes, std::uint64_t recv_bytes,
                         bool register_buffers, bool overlap)
    : ctx_(std::move(ctx)), graph_(graph), native_(find_native_p2p_calls()) {
  if (overlap) load_ = std::make_unique<ComputeLoad>();
  if (register_buffers) register_calls_ = find_register_calls(ctx_->dtypes.library_version);
  ensure_capacity(send_bytes, recv_bytes);
  wrong_counter_ = DeviceBuffer(sizeof(unsigned long long));
  wrong_host_ = PinnedBuffer(sizeof(unsigned long long));
}

NcclBackend::~NcclBackend() {
  // Nothing may still run on our buffers when they are freed.
  if (ctx_ && ctx_->stream) (void)cudaStreamSynchronize(ctx_->stream.get());
}

void NcclBackend::ensure_capacity(std::uint64_t send_bytes, std::uint64_t recv_bytes) {
  if (send_bytes <= send_.bytes() && recv_bytes <= recv_.bytes()) return;
  const std::uint64_t send_want = std::max<std::uint64_t>(send_bytes, send_.bytes());
  const std::uint64_t recv_want = std::max<std::uint64_t>(recv_bytes, recv_.bytes());
  graphs_.clear();  // captured graphs point at the old buffers
  registrations_.clear();
  send_.reset();
  recv_.reset();
  check_buffers_fit(ctx_->device, send_want, recv_want);
  send_ = DeviceBuffer(send_want);
  recv_ = DeviceBuffer(recv_want);
  if (register_calls_) register_buffers();
}

// Every rank registers the same two buffers (NCCL requires registered buffers on all ranks of
// a call or none); the control path's own buffer (NcclRankComm) stays unregistered on all.
void NcclBackend::register_buffers() {
  for (const auto& [buffer, what] : {std::pair{&send_, "send"}, {&recv_, "receive"}})
    if (buffer->get()) registrations_.emplace_back(ctx_->comm, *register_calls_, buffer->get(), buffer->bytes(), what);
  std::fprintf(stderr, "cctune worker: send (%s) and receive (%s) buffers registered with ncclCommRegister\n",
               format_size(send_.bytes()).c_str(), format_size(recv_.bytes()).c_str());
}

std::string NcclBackend::unsupported_reason(const PointSpec& spec) const {
  for (const StepCall& c : spec.sequence)
    if (std::string why = unsupported_reason(call_point(spec, c)); !why.empty())
      return "step call " + to_string(c.collective) + " " + format_size(c.bytes.size_bytes) + ": " + why;
  if (spec.bytes.param_count == 0) return "the size is smaller than one element per rank";
  if (std::string why = nccl_dtype_unsupported(spec.dtype, ctx_->dtypes); !why.empty()) return why;
  if (is_rooted(spec.collective) && (spec.root < 0 || spec.root >= ctx_->nranks))
    return "root " + std::to_string(spec.root) + " is not a rank of this " + std::to_string(ctx_->nranks) + "-rank communicator";
  if (spec.impl == P2pImpl::Native && !native_.has(spec.collective) && !spec.impl_fallback)
    return native_absent_reason(spec.collective, ctx_->dtypes.library_version);
  return nccl_placement_unsupported(spec);
}

std::optional<P2pImpl> NcclBackend::runs_as(const PointSpec& spec) const {
  if (spec.impl == P2pImpl::Native && !native_.has(spec.collective)) return P2pImpl::Grouped;
  return spec.impl;
}

void* NcclBackend::address(const Span& span) const {
  auto* base = static_cast<char*>(span.buffer == Buffer::Send ? send_.get() : recv_.get());
  return base + span.offset_bytes;
}

void NcclBackend::prepare(const PointSpec& spec) {
  const std::string why_not = unsupported_reason(spec);
  if (!why_not.empty()) throw RuntimeFailure("NCCL backend asked to run an unsupported point: " + why_not);
  graphs_.clear();
  spec_ = spec;
  if (load_) {  // the compute alone: sizes the first batch's load (finish() times it again per window)
    load_->measure_solo();
    load_us_per_op_ = 0;
  }
  calls_.clear();
  cudaStream_t s = ctx_->stream.get();
  if (!spec.sequence.empty()) {
    // A replayed step: every call out of place, each input written once; calls issued alone
    // share the start of the two buffers, a group's members each have their own region
    // (step_buffers.hpp). The outputs are not checked (check_plan_ stays unchecked).
    impl_ = std::nullopt;
    check_plan_ = {};
    check_plan_.unchecked_reason = "a replayed step's outputs are not checked";
    const StepBuffers buffers = step_buffers(spec.sequence);
    ensure_capacity(buffers.send_bytes, buffers.recv_bytes);
    for (std::size_t k = 0; k < spec.sequence.size(); ++k) {
      const StepCall& c = spec.sequence[k];
      const PointSpec p = call_point(spec, c);
      const NcclLayout layout = in_region(nccl_layout(p, ctx_->rank, ctx_->nranks), buffers.regions[k]);
      fill_input(p, layout, data_check_plan(p.collective, p.dtype, p.op, ctx_->nranks).input_magnitude, s);
      calls_.push_back({p, {address(layout.send), address(layout.recv)}, runs_as(p), c.repeats, c.group});
    }
    CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  const std::uint64_t w = dtype_size(spec.dtype);
  ensure_capacity(spec.bytes.send_count * w, spec.bytes.recv_count * w);
  impl_ = runs_as(spec);
  layout_ = nccl_layout(spec, ctx_->rank, ctx_->nranks);
  check_plan_ = data_check_plan(spec.collective, spec.dtype, spec.op, ctx_->nranks);
  calls_.push_back({spec, {address(layout_.send), address(layout_.recv)}, impl_, 1});
  fill_input(spec, layout_, check_plan_.input_magnitude, s);
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
}

void NcclBackend::fill_input(const PointSpec& spec, const NcclLayout& layout, int magnitude, cudaStream_t s) {
  // Poison the output with a value no input has (0x7f bytes: 127 in int8, NaN in float16,
  // ~3e38 in float32/bfloat16, NaN in both fp8 types) so that an operation that writes nothing is caught; then
  // write the input, which in-place layouts place inside the same memory.
  if (layout.poison.count > 0)
    CCTUNE_CUDA_CHECK(cudaMemsetAsync(address(layout.poison), 0x7f, layout.poison.count * dtype_size(spec.dtype), s));
  launch_fill_pattern(address(layout.input), spec.dtype, layout.input.count, ctx_->rank, 0, magnitude, s);
}

// One operation: each call `repeats` times in order; a group's members (consecutive calls of
// one group index) together inside one ncclGroupStart/End, the whole group its `repeats` times.
// A member that launches its own group (grouped send/recv) nests inside, as NCCL allows.
void NcclBackend::launch(cudaStream_t stream) {
  for (std::size_t first = 0; first < calls_.size();) {
    const std::size_t end = issue_unit_end(calls_, first);
    const bool grouped = calls_[first].group >= 0;
    for (int i = 0; i < calls_[first].repeats; ++i) {
      // A failure inside leaves the group open, which is harmless: run_batch's handler marks
      // the communicator failed.
      if (grouped) CCTUNE_NCCL_CHECK(ncclGroupStart(), ctx_->nccl());
      for (std::size_t k = first; k < end; ++k) launch_call(calls_[k], stream);
      if (grouped) CCTUNE_NCCL_CHECK(ncclGroupEnd(), ctx_->nccl());
    }
    first = end;
  }
}

void NcclBackend::launch_call(const Call& c, cudaStream_t stream) {
  const PointSpec& spec = c.spec;
  const ncclDataType_t dt = nccl_dtype(spec.dtype);
  const std::size_t count = spec.bytes.param_count;
  ncclComm_t comm = ctx_->nccl();
  void* const send = c.where.send;
  void* const recv = c.where.recv;
  switch (spec.collective) {
    case Collective::AllReduce:
      CCTUNE_NCCL_CHECK(ncclAllReduce(send, recv, count, dt, nccl_op(spec.op), comm, stream), comm);
      break;
    case Collective::AllGather: CCTUNE_NCCL_CHECK(ncclAllGather(send, recv, count, dt, comm, stream), comm); break;
    case Collective::ReduceScatter:
      CCTUNE_NCCL_CHECK(ncclReduceScatter(send, recv, count, dt, nccl_op(spec.op), comm, stream), comm);
      break;
    case Collective::Broadcast:
      CCTUNE_NCCL_CHECK(ncclBroadcast(send, recv, count, dt, spec.root, comm, stream), comm);
      break;
    case Collective::Reduce:
      CCTUNE_NCCL_CHECK(ncclReduce(send, recv, count, dt, nccl_op(spec.op), spec.root, comm, stream), comm);
      break;
    case Collective::AllToAll:
    case Collective::Gather:
    case Collective::Scatter:
      if (c.impl == P2pImpl::Native) {
        launch_native(c, comm, stream);
        break;
      }
      [[fallthrough]];
    case Collective::SendRecv: launch_point_to_point(c, comm, stream); break;
  }
}

// NCCL >= 2.28's own calls, with the buffers the grouped composition below uses: nccl.h
// documents the same block order (block r to/from rank r; the root's block r), and in-place
// gather/scatter as sendbuff == recvbuff + root*count (here rank*count on every rank).
void NcclBackend::launch_native(const Call& c, ncclComm_t comm, cudaStream_t stream) {
  const PointSpec& spec = c.spec;
  const ncclDataType_t dt = nccl_dtype(spec.dtype);
  const std::size_t count = spec.bytes.param_count;
  switch (spec.collective) {
    case Collective::AllToAll:
      CCTUNE_NCCL_CHECK(native_.alltoall(c.where.send, c.where.recv, count, dt, comm, stream), comm);
      break;
    case Collective::Gather:
      CCTUNE_NCCL_CHECK(native_.gather(c.where.send, c.where.recv, count, dt, spec.root, comm, stream), comm);
      break;
    case Collective::Scatter:
      CCTUNE_NCCL_CHECK(native_.scatter(c.where.send, c.where.recv, count, dt, spec.root, comm, stream), comm);
      break;
    default: throw RuntimeFailure("no native NCCL call for " + to_string(spec.collective));
  }
}

// nccl-tests' compositions of grouped ncclSend/ncclRecv (src/alltoall.cu, sendrecv.cu,
// gather.cu, scatter.cu before NCCL 2.28's own calls): one group per operation.
void NcclBackend::launch_point_to_point(const Call& c, ncclComm_t comm, cudaStream_t stream) {
  const PointSpec& spec = c.spec;
  const ncclDataType_t dt = nccl_dtype(spec.dtype);
  const std::size_t count = spec.bytes.param_count;
  const std::size_t block_bytes = count * dtype_size(spec.dtype);
  const int me = ctx_->rank;
  const int n = ctx_->nranks;
  char* const send = static_cast<char*>(c.where.send);
  char* const recv = static_cast<char*>(c.where.recv);
  CCTUNE_NCCL_CHECK(ncclGroupStart(), comm);
  switch (spec.collective) {
    case Collective::AllToAll:  // block r to rank r, this rank included; block r from rank r
      for (int r = 0; r < n; ++r) {
        CCTUNE_NCCL_CHECK(ncclSend(send + r * block_bytes, count, dt, r, comm, stream), comm);
        CCTUNE_NCCL_CHECK(ncclRecv(recv + r * block_bytes, count, dt, r, comm, stream), comm);
      }
      break;
    case Collective::SendRecv:  // a ring: to the next rank, from the previous one
      CCTUNE_NCCL_CHECK(ncclSend(send, count, dt, (me + 1) % n, comm, stream), comm);
      CCTUNE_NCCL_CHECK(ncclRecv(recv, count, dt, (me + n - 1) % n, comm, stream), comm);
      break;
    case Collective::Gather:  // every rank (the root too) sends its block; the root receives all
      CCTUNE_NCCL_CHECK(ncclSend(send, count, dt, spec.root, comm, stream), comm);
      if (me == spec.root)
        for (int r = 0; r < n; ++r) CCTUNE_NCCL_CHECK(ncclRecv(recv + r * block_bytes, count, dt, r, comm, stream), comm);
      break;
    case Collective::Scatter:  // the root sends block r to rank r (itself too); everyone receives one
      if (me == spec.root)
        for (int r = 0; r < n; ++r) CCTUNE_NCCL_CHECK(ncclSend(send + r * block_bytes, count, dt, r, comm, stream), comm);
      CCTUNE_NCCL_CHECK(ncclRecv(recv, count, dt, spec.root, comm, stream), comm);
      break;
    default: break;
  }
  // ncclGroupEnd launches the group; a failure inside the loop above leaves the group open,
  // which is harmless: the communicator is marked failed by run_batch's handler.
  CCTUNE_NCCL_CHECK(ncclGroupEnd(), comm);
}

void NcclBackend::ensure_events(std::size_t count) {
  while (events_.size() < count) events_.push_back(make_event());
}

// The CUDA steps of time_device_batch: `launch` is one operation or one graph replay.
class NcclBackend::Steps {
 public:
  Steps(NcclBackend& b, cudaGraphExec_t graph) : b_(b), stream_(b.ctx_->stream.get()), graph_(graph) {}
  void sync() { CCTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  double clock_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void launch() {
    if (graph_)
      CCTUNE_CUDA_CHECK(cudaGraphLaunch(graph_, stream_));
    else
      b_.launch(stream_);
  }
  void ensure_events(int count) { b_.ensure_events(static_cast<std::size_t>(count)); }
  void record(int i) { CCTUNE_CUDA_CHECK(cudaEventRecord(b_.events_[i].get(), stream_)); }
  double elapsed_us(int from, int to) {
    float ms = 0;
    CCTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, b_.events_[from].get(), b_.events_[to].get()));
    return static_cast<double>(ms) * 1000.0;
  }

 private:
  NcclBackend& b_;
  cudaStream_t stream_;
  cudaGraphExec_t graph_;
};

BatchTiming NcclBackend::run_batch(const BatchRequest& batch) {
  if (!spec_) throw RuntimeFailure("NcclBackend::run_batch before prepare");
  const int n = std::max(batch.n, 1);
  try {
    // Graph mode: n operations as n/k replays of a graph of k captured operations.
    const int k = graph_ ? graph_ops_per_replay(n) : 1;
    Steps steps(*this, graph_ ? graph_for(k) : nullptr);
    if (!load_) return time_device_batch(steps, batch.kind, n / k, k);
    // Until the first batch has been seen, assume 2 ms per operation (a probe of one).
    load_->start(n * (load_us_per_op_ > 0 ? load_us_per_op_ : 2000.0));
    BatchTiming t = time_device_batch(steps, batch.kind, n / k, k);
    const bool per_op = batch.kind == BatchKind::PerOp;
    t.compute_slowdown = per_op ? load_->finish(events_[0].get(), events_[n / k].get()) : load_->finish();
    t.overlap = true;
    load_us_per_op_ = t.wall_us / std::max(t.ran, 1);
    return t;
  } catch (...) {
    ctx_->comm.mark_failed();  // abort, not destroy: peers may be stuck in this operation
    throw;
  }
}

cudaGraphExec_t NcclBackend::graph_for(int k) {
  if (auto it = graphs_.find(k); it != graphs_.end()) return it->second.get();
  cudaStream_t s = ctx_->stream.get();
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
  CCTUNE_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  try {
    for (int i = 0; i < k; ++i) launch(s);
  } catch (...) {
    cudaGraph_t abandoned = nullptr;
    (void)cudaStreamEndCapture(s, &abandoned);
    if (abandoned) (void)cudaGraphDestroy(abandoned);
    throw;
  }
  cudaGraph_t raw = nullptr;
  CCTUNE_CUDA_CHECK(cudaStreamEndCapture(s, &raw));
  CudaGraph graph(raw);
  cudaGraphExec_t exec = nullptr;
  CCTUNE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0));
  return graphs_.emplace(k, CudaGraphExec(exec)).first->second.get();
}

CheckSpec NcclBackend::check_spec() const {
  CheckSpec c;
  c.dtype = spec_->dtype;
  c.op = spec_->op;
  c.input_magnitude = check_plan_.input_magnitude;
  c.count = layout_.output.count;
  c.expected = layout_.expected;
  return c;
}

long NcclBackend::count_wrong() {
  if (!spec_) throw RuntimeFailure("NcclBackend::count_wrong before prepare");
  if (!check_plan_.checked()) return kNotChecked;  // the same decision on every rank
  cudaStream_t s = ctx_->stream.get();
  auto* counter = wrong_counter_.as<unsigned long long>();
  CCTUNE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s));
  launch_count_wrong(address(layout_.output), check_spec(), counter, s);
  CCTUNE_CUDA_CHECK(cudaMemcpyAsync(wrong_host_.get(), counter, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
  unsigned long long wrong = 0;
  std::memcpy(&wrong, wrong_host_.get(), sizeof wrong);
  return static_cast<long>(wrong);
}

PointConfig NcclBackend::chosen() const {
  PointConfig c;
  c.graph = graph_;
  return c;  // algo/proto are observed by the tuner plugin (TunedBackend), not here
}

}  // namespace cctune::nccl_detail
