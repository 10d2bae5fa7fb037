#include "collectives/nccl/nccl_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

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

NcclBackend::NcclBackend(std::shared_ptr<NcclContext> ctx, bool graph, std::uint64_t send_bytes,
                         std::uint64_t recv_bytes)
    : ctx_(std::move(ctx)), graph_(graph) {
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
  send_.reset();
  recv_.reset();
  check_buffers_fit(ctx_->device, send_want, recv_want);
  send_ = DeviceBuffer(send_want);
  recv_ = DeviceBuffer(recv_want);
}

std::string NcclBackend::unsupported_reason(const PointSpec& spec) const {
  switch (spec.collective) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter: break;
    default: return "the NCCL backend measures allreduce, allgather and reducescatter; not " + to_string(spec.collective);
  }
  if (spec.bytes.param_count == 0) return "the size is smaller than one element per rank";
  return {};
}

NcclBackend::Placement NcclBackend::placement(const PointSpec& spec) const {
  const std::uint64_t w = dtype_size(spec.dtype);
  const std::uint64_t c = spec.bytes.param_count;
  auto* send = static_cast<char*>(send_.get());
  auto* recv = static_cast<char*>(recv_.get());
  if (!spec.in_place) return {send, recv};
  // nccl-tests' in-place layouts.
  switch (spec.collective) {
    case Collective::AllGather: return {recv + ctx_->rank * c * w, recv};
    case Collective::ReduceScatter: return {send, send + ctx_->rank * c * w};
    default: return {recv, recv};
  }
}

void NcclBackend::prepare(const PointSpec& spec) {
  const std::string why_not = unsupported_reason(spec);
  if (!why_not.empty()) throw RuntimeFailure("NCCL backend asked to run an unsupported point: " + why_not);
  const std::uint64_t w = dtype_size(spec.dtype);
  ensure_capacity(spec.bytes.send_count * w, spec.bytes.recv_count * w);
  graphs_.clear();
  spec_ = spec;
  where_ = placement(spec);
  cudaStream_t s = ctx_->stream.get();
  // Poison the output so that an operation that writes nothing is caught by the check.
  const std::uint64_t recv_bytes = spec.bytes.recv_count * w;
  if (!spec.in_place || spec.collective == Collective::AllGather)
    CCTUNE_CUDA_CHECK(cudaMemsetAsync(where_.recv, 0xff, recv_bytes, s));
  launch_fill_pattern(where_.send, spec.dtype, spec.bytes.send_count, ctx_->rank, 0, s);
  CCTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
}

void NcclBackend::launch(cudaStream_t stream) {
  const PointSpec& spec = *spec_;
  const ncclDataType_t dt = nccl_dtype(spec.dtype);
  const std::size_t count = spec.bytes.param_count;
  ncclComm_t comm = ctx_->nccl();
  switch (spec.collective) {
    case Collective::AllReduce:
      CCTUNE_NCCL_CHECK(ncclAllReduce(where_.send, where_.recv, count, dt, nccl_op(spec.op), comm, stream), comm);
      break;
    case Collective::AllGather:
      CCTUNE_NCCL_CHECK(ncclAllGather(where_.send, where_.recv, count, dt, comm, stream), comm);
      break;
    case Collective::ReduceScatter:
      CCTUNE_NCCL_CHECK(ncclReduceScatter(where_.send, where_.recv, count, dt, nccl_op(spec.op), comm, stream), comm);
      break;
    default: throw RuntimeFailure("unsupported collective " + to_string(spec.collective));
  }
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
    return time_device_batch(steps, batch.kind, n / k, k);
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
  const PointSpec& spec = *spec_;
  CheckSpec c;
  c.dtype = spec.dtype;
  c.op = spec.op;
  c.nranks = ctx_->nranks;
  const std::uint64_t count = spec.bytes.param_count;
  switch (spec.collective) {
    case Collective::AllGather:
      c.kind = ExpectedKind::Gathered;
      c.count = count * static_cast<std::uint64_t>(ctx_->nranks);
      c.block = count;
      break;
    case Collective::ReduceScatter:
      c.count = count;
      c.first_index = count * static_cast<std::uint64_t>(ctx_->rank);
      break;
    default: c.count = count; break;
  }
  return c;
}

long NcclBackend::count_wrong() {
  if (!spec_) throw RuntimeFailure("NcclBackend::count_wrong before prepare");
  cudaStream_t s = ctx_->stream.get();
  auto* counter = wrong_counter_.as<unsigned long long>();
  CCTUNE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s));
  launch_count_wrong(where_.recv, check_spec(), counter, s);
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
