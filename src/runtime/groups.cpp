#include "runtime/groups.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/nccl_settings.hpp"
#include "core/text.hpp"

namespace cctune::runtime {

ConfigGroup transport_group(const std::string& name) {
  if (name == "nvlink") return {"nvlink", {}, {}};
  if (name == "pcie") return {"pcie", {{"NCCL_P2P_DISABLE", "1"}}, {}};
  if (name == "net") return {"net", {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}}, {}};
  throw UsageError("--transport '" + name + "' is unknown", "use nvlink, pcie or net, or a comma-separated list of them");
}

std::vector<ConfigGroup> transport_groups(const std::string& text) {
  std::vector<ConfigGroup> out;
  std::set<std::string> seen;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    if (!seen.insert(item).second) throw UsageError("--transport names '" + item + "' twice", "name each transport once");
    out.push_back(transport_group(item));
  }
  if (out.empty()) throw UsageError("--transport is empty", "use nvlink, pcie or net, or a comma-separated list of them");
  return out;
}

void check_group_label(const std::string& label, const std::string& fix) {
  const std::string shown = "--env-group label '" + text::log_text(label, 64) + "'";
  // A label names a results group, a directory word and a line of output: as a space file's
  // group name, and never one that reads as another side (a transport, verify's two sides).
  const bool word = !label.empty() && label.size() <= kMaxGroupLabel && std::isalnum(static_cast<unsigned char>(label[0])) &&
                    std::all_of(label.begin(), label.end(),
                                [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; });
  if (!word)
    throw UsageError(shown + " must start with a letter or digit and hold at most " + std::to_string(kMaxGroupLabel) +
                         " letters, digits, '-', '_' and '.'",
                     fix);
  for (const char* reserved : {"nvlink", "pcie", "net", "default", "profile"})
    if (label == reserved)
      throw UsageError(shown + " is reserved (the --transport groups, and verify's NCCL-defaults and profile sides)",
                       "choose another label");
}

ConfigGroup parse_env_group(const std::string& text) {
  const std::string fix = "use --env-group LABEL:KEY=VALUE[,KEY=VALUE...], e.g. --env-group big:NCCL_BUFFSIZE=8388608";
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) throw UsageError("--env-group '" + text + "' has no label", fix);
  ConfigGroup g;
  g.label = text.substr(0, colon);
  check_group_label(g.label, fix);
  std::stringstream in(text.substr(colon + 1));
  for (std::string kv; std::getline(in, kv, ',');) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--env-group '" + text + "': '" + kv + "' is not KEY=VALUE", fix);
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    // Refused here, before any worker starts, as a space file's group is; the value must also
    // go into nccl.env as it is, should the group win.
    const std::string name = text::log_text(key, 64);
    const std::string setting = "--env-group " + g.label + " sets " + name + "=" + text::log_text(value, 64) + ", refused: ";
    if (const std::optional<SettingProblem> p = deployable_setting_problem(key, value))
      throw UsageError(setting + name + " " + p->what, "use " + p->fix);
    if (g.env.count(key)) throw UsageError("--env-group " + g.label + " sets " + name + " twice", "give each setting once");
    g.env[key] = value;
  }
  if (g.env.empty())
    throw UsageError("--env-group " + g.label + " sets nothing",
                     "NCCL's defaults are measured anyway (the --transport group); give KEY=VALUE");
  return g;
}

std::vector<int> owned_devices(const std::string& host, int ranks_on_node, int local_index, int device_count,
                               int gpus_requested, bool shared_gpu) {
  if (device_count <= 0)
    throw EnvironmentError("no GPU is visible on " + host, "check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --backend mpi");
  if (gpus_requested < 0) throw UsageError("--gpus must not be negative", "use --gpus N with 1 <= N <= the GPUs of a node");
  std::vector<int> out;
  if (ranks_on_node == 1) {
    if (gpus_requested > device_count)
      throw UsageError("--gpus " + std::to_string(gpus_requested) + " but " + host + " has " + std::to_string(device_count) + " GPU" +
                           (device_count == 1 ? "" : "s"),
                       "use --gpus " + std::to_string(device_count) + " or fewer");
    const int n = gpus_requested == 0 ? device_count : gpus_requested;
    for (int d = 0; d < n; ++d) out.push_back(d);
    return out;
  }
  if (ranks_on_node > device_count && !shared_gpu)
    throw UsageError(std::to_string(ranks_on_node) + " ranks on " + host + " but only " + std::to_string(device_count) + " GPU" +
                         (device_count == 1 ? "" : "s"),
                     "launch at most one rank per GPU (mpirun -npernode " + std::to_string(device_count) +
                         "), or one rank per node to use all its GPUs (functional tests only: --test-shared-gpu 1)");
  if (gpus_requested > 1)
    throw UsageError("--gpus " + std::to_string(gpus_requested) + " with " + std::to_string(ranks_on_node) + " ranks on " + host,
                     "with several ranks per node each rank owns one GPU; launch one rank per node to use --gpus");
  out.push_back(local_index % device_count);
  return out;
}

std::vector<int> worker_devices(const std::vector<int>& owned, int per_gpu) {
  std::vector<int> out;
  for (int d : owned)
    for (int k = 0; k < std::max(1, per_gpu); ++k) out.push_back(d);
  return out;
}

WorkerLayout layout_workers(const std::vector<SupervisorSlot>& slots, int my_rank) {
  WorkerLayout l;
  std::set<std::string> hosts;
  const std::string& me = slots.at(static_cast<std::size_t>(my_rank)).host;
  for (int r = 0; r < static_cast<int>(slots.size()); ++r) {
    const auto& s = slots[static_cast<std::size_t>(r)];
    hosts.insert(s.host);
    if (r < my_rank) l.first_rank += s.workers;
    l.nranks += s.workers;
    if (s.host == me) {
      if (r < my_rank) {
        l.node_offset += s.workers;
        ++l.local_index;
      }
      l.node_workers += s.workers;
      ++l.ranks_on_node;
    }
  }
  l.real_nodes = static_cast<int>(hosts.size());
  return l;
}

std::string emulated_host_id(const std::string& host, int node_index, int node_workers, int k) {
  if (k < 1) throw UsageError("--emulate-nodes must be at least 1", "use e.g. --emulate-nodes 2");
  if (k > node_workers || node_workers % k != 0)
    throw UsageError("--emulate-nodes " + std::to_string(k) + " does not divide the " + std::to_string(node_workers) + " GPU workers on " + host,
                     "choose K that divides the GPUs per node (e.g. 2 for 8 GPUs), or use --gpus");
  return host + "-emu" + std::to_string(node_index / (node_workers / k));
}

std::string shared_gpu_host_id(const std::string& host, int node_index) { return host + "-shared" + std::to_string(node_index); }

std::vector<std::string> worker_host_ids(const std::string& host, const WorkerLayout& layout, int workers, int emulate_nodes,
                                         bool shared_gpu) {
  std::vector<std::string> out;
  for (int i = 0; i < workers; ++i) {
    const int node_index = layout.node_offset + i;
    out.push_back(shared_gpu          ? shared_gpu_host_id(host, node_index)
                  : emulate_nodes > 1 ? emulated_host_id(host, node_index, layout.node_workers, emulate_nodes)
                                      : std::string());
  }
  return out;
}

int nccl_nodes(int hosts, int workers, int emulate_nodes, bool shared_gpu) { return shared_gpu ? workers : hosts * emulate_nodes; }

int job_nodes(const WorkerLayout& layout, int emulate_nodes, bool shared_gpu) {
  return nccl_nodes(layout.real_nodes, layout.nranks, emulate_nodes, shared_gpu);
}

}  // namespace cctune::runtime
