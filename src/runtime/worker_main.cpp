#include "runtime/worker_main.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string_view>

#include "collectives/nccl/nccl_module.hpp"
#include "core/error.hpp"
#include "core/error_record.hpp"
#include "core/nccl_settings.hpp"
#include "core/text.hpp"
#include "runtime/line_channel.hpp"
#include "runtime/module_loader.hpp"
#include "runtime/protocol.hpp"
#include "runtime/worker_loop.hpp"
#include "runtime/worker_plan.hpp"
#include "runtime/worker_process.hpp"
#include "topology/binding.hpp"
#include "topology/hwloc_probe.hpp"
#include "topology/node_probe.hpp"
#include "tuner/plugin/tuned_backend.hpp"

namespace cctune::runtime {
namespace {

// Dies with its supervisor: a worker must never outlive the job that started it.
void follow_parent() {
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
}

void emit_line(const Message& m) {
  if (!write_line(worker_message_fd, encode(m))) ::_exit(1);  // the supervisor is gone
}

Message read_supervisor_message() {
  std::string line;
  while (std::getline(std::cin, line))
    if (!line.empty()) return decode(line);
  throw RuntimeFailure("the supervisor closed the worker's input");
}

// Binds the worker to the CPUs of its GPU's NUMA node. Best effort: a worker that cannot be
// bound still measures correctly, and says why in its log.
// The GPU is named by PCI bus id: CUDA's device order (and CUDA_VISIBLE_DEVICES) need not
// match the node's GPU indices.
void bind_to_gpu_numa_node(int device, const std::string& pci_bus_id) {
  if (pci_bus_id.empty()) {
    std::fprintf(stderr, "cctune worker: no PCI bus id for device %d; not bound to a NUMA node\n", device);
    return;
  }
  try {
    topo::bind_process_to_gpu(topo::probe_local_node(), pci_bus_id);
    std::fprintf(stderr, "cctune worker: bound to the CPUs of GPU %s's NUMA node (%s)\n", pci_bus_id.c_str(),
                 topo::current_cpu_binding().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cctune worker: not bound to GPU %d's NUMA node: %s\n", device, e.what());
  }
}

// One log line naming the worker and every NCCL_* variable it runs with: the first thing to
// check when a number looks wrong is what NCCL read (NCCL_NVLS_ENABLE, NCCL_HOSTID in the
// shared-GPU test mode, a group's settings, a stray NCCL_ALGO).
void log_identity(const WorkerSpec& spec) {
  std::string nccl_env;
  for (const auto& [k, v] : nccl_variables(current_environment())) nccl_env += " " + k + "=" + v;
  std::fprintf(stderr, "cctune worker: rank %d of %d on device %d, group %s; environment:%s\n", spec.rank, spec.nranks, spec.device,
               spec.group.c_str(), nccl_env.empty() ? " no NCCL_* variable" : nccl_env.c_str());
}

}  // namespace

int run_worker_query(const std::string& executable) {
  nlohmann::json out;
  int code = 0;
  try {
    auto module = load_worker_module(executable);
    out = {{"device_count", module->device_count()}, {"nccl_version", module->nccl_version()}, {"cuda", module->cuda_versions()}};
  } catch (const std::exception& e) {
    out = {{"error", to_json(record_of(e))}};
    code = dynamic_cast<const EnvironmentError*>(&e) ? exit_code::environment : exit_code::failure;
  }
  std::printf("%s\n", text::dump_json(out).c_str());
  std::fflush(stdout);
  return code;
}

int run_worker_versions(const std::string& executable) {
  nlohmann::json out;
  try {
    auto module = load_worker_module(executable);
    out["module"] = nccl_module_path(executable);
    // Each asked on its own: a host with NCCL but no driver still reports NCCL's release.
    try {
      out["nccl_version"] = module->nccl_version();
    } catch (const std::exception& e) {
      out["nccl_error"] = e.what();
    }
    try {
      out["cuda"] = module->cuda_versions();
    } catch (const std::exception& e) {
      out["cuda_error"] = e.what();
    }
  } catch (const std::exception& e) {
    out = {{"error", to_json(record_of(e))}};
  }
  std::printf("%s\n", text::dump_json(out).c_str());
  std::fflush(stdout);
  return 0;
}

int run_worker(const std::string& executable, const BeforePoint& before_point) {
  follow_parent();
  // A process NCCL or a plugin starts must not inherit the message pipe: holding it open
  // would keep the supervisor from ever seeing this worker's end-of-file.
  ::fcntl(worker_message_fd, F_SETFD, FD_CLOEXEC);
  std::signal(SIGPIPE, SIG_DFL);
  WorkerSpec spec;
  try {
    std::string line;
    if (!std::getline(std::cin, line)) throw UsageError("no worker spec on stdin", "`cctune __worker` is started by `cctune sweep`, not by hand");
    spec = parse_worker_spec(line);
    log_identity(spec);
    // Read before NCCL starts: a value other than 1 or 0 fails the group with its name.
    const char* register_value = std::getenv(std::string(kRegisterHookVariable).c_str());
    const bool register_buffers =
        register_buffers_requested(register_value ? std::optional<std::string_view>(register_value) : std::nullopt);
    const SweepPlan plan = plan_from_json(spec.plan);
    const auto points = enumerate_points(plan, spec.nranks);

    auto module = load_worker_module(executable);
    const std::string bus_id = module->pci_bus_id(spec.device);
    emit_line(hello_message(spec.rank, spec.device, bus_id, module->nccl_version(), module->cuda_versions()));
    if (spec.rank == 0) emit_line(uid_message(module->new_unique_id_hex()));
    bind_to_gpu_numa_node(spec.device, bus_id);

    const Message uid = read_supervisor_message();
    if (uid.type != MessageType::Uid) throw RuntimeFailure("expected the NCCL unique id, got a '" + to_string(uid.type) + "' message");
    NcclWorkerSetup setup;
    setup.nranks = spec.nranks;
    setup.rank = spec.rank;
    setup.device = spec.device;
    setup.unique_id_hex = uid.body.value("uid", "");
    setup.graph = spec.graph;
    const BufferBytes buffers = largest_buffers(points);
    setup.max_send_bytes = buffers.send;
    setup.max_recv_bytes = buffers.recv;
    setup.register_buffers = register_buffers;
    setup.overlap = plan.nccl.overlap;
    // Forced channel counts are not allowed to raise the communicator's ceiling (minCTAs):
    // that would change what NCCL's own "auto" choice runs too, and "auto" is the baseline
    // every profile is measured against. Config groups raise it (NCCL_MIN_CTAS).
    std::unique_ptr<CollectiveBackend> backend = module->create_backend(setup);
    // Forced and observed algo/proto/channels through cctune's tuner plugin, which NCCL (or
    // the tests' stand-in module, as NCCL would) consults for every operation.
    backend = wrap_with_sweep_control(std::move(backend), module->comm());
    emit_line(ready_message());
    run_worker_points(*backend, module->comm(), spec, plan, points, emit_line, before_point);
    backend.reset();
    emit_line(done_message());
    std::fflush(stdout);
    std::fflush(stderr);
    // Over NCCL's network transports a rank's last operation can be complete while its proxy
    // thread still sends the final bytes to a peer: leaving now stranded the peer inside that
    // operation (seen with two ranks over sockets on one H100). The supervisors release the
    // workers, by closing their input, once every worker of the group has said done.
    for (std::string rest; std::getline(std::cin, rest);) {
    }
    // NCCL's and CUDA's teardown at exit is slow and can hang on a broken peer; the results
    // are sent, so leave now.
    ::_exit(0);
  } catch (const Error& e) {
    std::fprintf(stderr, "cctune worker rank %d: %s\n", spec.rank, e.describe().c_str());
    emit_line(error_message(e.what_only(), error_kind_of(e), e.fix()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cctune worker rank %d: %s\n", spec.rank, e.what());
    emit_line(error_message(e.what(), ErrorKind::Failure));
  }
  std::fflush(stderr);
  ::_exit(1);
}

}  // namespace cctune::runtime
