#include "topology/nvml_probe.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "core/text.hpp"
#include "topology/nvml_api.hpp"

namespace cctune::topo {

namespace {

struct LibraryCloser {
  void operator()(void* h) const noexcept { dlclose(h); }
};
using Library = std::unique_ptr<void, LibraryCloser>;

template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

// The entry points used; optional ones may be null on old drivers.
struct NvmlApi {
  using Dev = nvml::Device;
  nvml::Return (*init)() = nullptr;
  nvml::Return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml::Return) = nullptr;
  nvml::Return (*driver_version)(char*, unsigned) = nullptr;
  nvml::Return (*cuda_driver_version)(int*) = nullptr;
  nvml::Return (*count)(unsigned*) = nullptr;
  nvml::Return (*handle)(unsigned, Dev*) = nullptr;
  nvml::Return (*name)(Dev, char*, unsigned) = nullptr;
  nvml::Return (*uuid)(Dev, char*, unsigned) = nullptr;
  nvml::Return (*pci)(Dev, nvml::PciInfo*) = nullptr;
  nvml::Return (*memory)(Dev, nvml::Memory*) = nullptr;
  nvml::Return (*cpu_affinity)(Dev, unsigned, unsigned long*) = nullptr;
  nvml::Return (*numa_node)(Dev, unsigned*) = nullptr;
  nvml::Return (*architecture)(Dev, unsigned*) = nullptr;
  nvml::Return (*pcie_gen)(Dev, unsigned*) = nullptr;
  nvml::Return (*pcie_width)(Dev, unsigned*) = nullptr;
  nvml::Return (*pcie_max_gen)(Dev, unsigned*) = nullptr;
  nvml::Return (*pcie_max_width)(Dev, unsigned*) = nullptr;
  nvml::Return (*nvlink_state)(Dev, unsigned, int*) = nullptr;
  nvml::Return (*nvlink_version)(Dev, unsigned, unsigned*) = nullptr;
  nvml::Return (*nvlink_remote_pci)(Dev, unsigned, nvml::PciInfo*) = nullptr;
  nvml::Return (*nvlink_remote_type)(Dev, unsigned, int*) = nullptr;
  nvml::Return (*field_values)(Dev, int, nvml::FieldValue*) = nullptr;

  void load(void* lib) {
    init = symbol<decltype(init)>(lib, "nvmlInit_v2");
    shutdown = symbol<decltype(shutdown)>(lib, "nvmlShutdown");
    error_string = symbol<decltype(error_string)>(lib, "nvmlErrorString");
    driver_version = symbol<decltype(driver_version)>(lib, "nvmlSystemGetDriverVersion");
    cuda_driver_version = symbol<decltype(cuda_driver_version)>(lib, "nvmlSystemGetCudaDriverVersion_v2");
    count = symbol<decltype(count)>(lib, "nvmlDeviceGetCount_v2");
    handle = symbol<decltype(handle)>(lib, "nvmlDeviceGetHandleByIndex_v2");
    name = symbol<decltype(name)>(lib, "nvmlDeviceGetName");
    uuid = symbol<decltype(uuid)>(lib, "nvmlDeviceGetUUID");
    pci = symbol<decltype(pci)>(lib, "nvmlDeviceGetPciInfo_v3");
    memory = symbol<decltype(memory)>(lib, "nvmlDeviceGetMemoryInfo");
    cpu_affinity = symbol<decltype(cpu_affinity)>(lib, "nvmlDeviceGetCpuAffinity");
    numa_node = symbol<decltype(numa_node)>(lib, "nvmlDeviceGetNumaNodeId");
    architecture = symbol<decltype(architecture)>(lib, "nvmlDeviceGetArchitecture");
    pcie_gen = symbol<decltype(pcie_gen)>(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    pcie_width = symbol<decltype(pcie_width)>(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    pcie_max_gen = symbol<decltype(pcie_max_gen)>(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    pcie_max_width = symbol<decltype(pcie_max_width)>(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    nvlink_state = symbol<decltype(nvlink_state)>(lib, "nvmlDeviceGetNvLinkState");
    nvlink_version = symbol<decltype(nvlink_version)>(lib, "nvmlDeviceGetNvLinkVersion");
    nvlink_remote_pci = symbol<decltype(nvlink_remote_pci)>(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    nvlink_remote_type = symbol<decltype(nvlink_remote_type)>(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
    field_values = symbol<decltype(field_values)>(lib, "nvmlDeviceGetFieldValues");
  }
  bool complete() const { return init && shutdown && count && handle && pci; }
  std::string describe(nvml::Return r) const {
    return error_string ? std::string(error_string(r)) : "NVML error " + std::to_string(r);
  }
};

// Affinity bitmask (64-bit words) -> "0-55,112-167".
std::string cpu_list(const unsigned long* words, unsigned n_words) {
  std::string out;
  const unsigned bits = 8 * sizeof(unsigned long);
  int start = -1;
  auto flush = [&](int end) {
    if (start < 0) return;
    if (!out.empty()) out += ',';
    out += start == end ? std::to_string(start) : std::to_string(start) + "-" + std::to_string(end);
    start = -1;
  };
  for (unsigned i = 0; i < n_words * bits; ++i) {
    bool set = (words[i / bits] >> (i % bits)) & 1UL;
    if (set && start < 0) start = static_cast<int>(i);
    if (!set) flush(static_cast<int>(i) - 1);
  }
  flush(static_cast<int>(n_words * bits) - 1);
  return out;
}

Gpu read_gpu(const NvmlApi& api, nvml::Device dev, unsigned index) {
  Gpu g;
  g.index = static_cast<int>(index);
  char buf[128] = {};
  if (api.name && api.name(dev, buf, sizeof buf) == nvml::success) g.name = buf;
  if (api.uuid && api.uuid(dev, buf, sizeof buf) == nvml::success) g.uuid = buf;
  nvml::PciInfo pci{};
  if (api.pci(dev, &pci) == nvml::success) g.pci_bus_id = normalize_pci_bus_id(pci.busId);
  nvml::Memory mem{};
  if (api.memory && api.memory(dev, &mem) == nvml::success) g.memory_bytes = mem.total;
  unsigned v = 0;
  if (api.numa_node && api.numa_node(dev, &v) == nvml::success) g.numa_node = static_cast<int>(v);
  unsigned long affinity[16] = {};
  if (api.cpu_affinity && api.cpu_affinity(dev, 16, affinity) == nvml::success) g.cpu_affinity = cpu_list(affinity, 16);
  if (api.pcie_gen && api.pcie_gen(dev, &v) == nvml::success) g.pcie_generation = static_cast<int>(v);
  if (api.pcie_width && api.pcie_width(dev, &v) == nvml::success) g.pcie_width = static_cast<int>(v);
  if (api.pcie_max_gen && api.pcie_max_gen(dev, &v) == nvml::success) g.pcie_max_generation = static_cast<int>(v);
  if (api.pcie_max_width && api.pcie_max_width(dev, &v) == nvml::success) g.pcie_max_width = static_cast<int>(v);

  // Per-link speed: NVML's common speed of active links (MB/s), else the architecture's.
  double speed_GBps = 0;
  if (api.field_values) {
    nvml::FieldValue fv{};
    fv.fieldId = nvml::field_nvlink_speed_mbps_common;
    if (api.field_values(dev, 1, &fv) == nvml::success && fv.nvmlReturn == nvml::success && fv.value.uiVal > 0)
      speed_GBps = fv.value.uiVal / 1000.0;
  }
  unsigned arch = 0;
  if (speed_GBps == 0 && api.architecture && api.architecture(dev, &arch) == nvml::success)
    speed_GBps = nvlink_speed_for_architecture(arch);
  if (!api.nvlink_state) return g;
  for (unsigned link = 0; link < nvml::max_nvlinks; ++link) {
    int active = 0;
    if (api.nvlink_state(dev, link, &active) != nvml::success) continue;  // link not present
    NvLink l;
    l.link = static_cast<int>(link);
    l.active = active != 0;
    if (api.nvlink_version && api.nvlink_version(dev, link, &v) == nvml::success) l.version = static_cast<int>(v);
    l.speed_GBps = l.active ? speed_GBps : 0;
    nvml::PciInfo remote{};
    if (api.nvlink_remote_pci && api.nvlink_remote_pci(dev, link, &remote) == nvml::success)
      l.remote_pci_bus_id = normalize_pci_bus_id(remote.busId);
    int type = -1;
    l.remote_type = "unknown";
    if (api.nvlink_remote_type && api.nvlink_remote_type(dev, link, &type) == nvml::success)
      l.remote_type = type == nvml::nvlink_remote_gpu      ? "gpu"
                      : type == nvml::nvlink_remote_switch ? "switch"
                      : type == nvml::nvlink_remote_ibmnpu ? "npu"
                                                           : "unknown";
    g.nvlinks.push_back(l);
  }
  return g;
}

}  // namespace

double nvlink_speed_for_architecture(unsigned arch) {
  switch (arch) {
    case nvml::arch_volta:
    case nvml::arch_ampere: return 25.0;
    case nvml::arch_hopper: return 26.5625;
    case nvml::arch_blackwell: return 50.0;
    default: return 0.0;
  }
}

NvmlFacts probe_nvml(const std::string& library) {
  NvmlFacts f;
  Library lib(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char* why = dlerror();
    f.absent_reason = library + " not found (" + (why ? why : "dlopen failed") +
                      "): no NVIDIA driver on this node, so no GPU is visible";
    return f;
  }
  NvmlApi api;
  api.load(lib.get());
  if (!api.complete()) {
    f.absent_reason = library + " lacks nvmlInit_v2/nvmlDeviceGetPciInfo_v3: driver too old";
    return f;
  }
  if (nvml::Return r = api.init(); r != nvml::success) {
    f.absent_reason = "nvmlInit failed: " + api.describe(r) + " (is the NVIDIA kernel driver loaded?)";
    return f;
  }
  char buf[96] = {};
  if (api.driver_version && api.driver_version(buf, sizeof buf) == nvml::success) f.driver = buf;
  int cuda = 0;
  if (api.cuda_driver_version && api.cuda_driver_version(&cuda) == nvml::success && cuda > 0)
    f.cuda_driver = std::to_string(cuda / 1000) + "." + std::to_string((cuda % 1000) / 10);
  unsigned n = 0;
  if (nvml::Return r = api.count(&n); r != nvml::success) {
    f.absent_reason = "nvmlDeviceGetCount failed: " + api.describe(r);
  } else if (n == 0) {
    f.absent_reason = "NVML reports 0 GPUs";
  }
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  for (unsigned i = 0; i < n; ++i) {
    nvml::Device dev = nullptr;
    if (api.handle(i, &dev) != nvml::success) continue;  // e.g. a GPU the cgroup hides
    Gpu g = read_gpu(api, dev, i);
    if (visible_to_cuda(cvd, i, g.uuid)) f.gpus.push_back(std::move(g));
  }
  if (n > 0 && f.gpus.empty() && cvd) f.absent_reason = "CUDA_VISIBLE_DEVICES=" + text::log_text(cvd, 64) + " shows none of NVML's GPUs";
  api.shutdown();
  return f;
}

bool visible_to_cuda(const char* cvd, unsigned index, const std::string& uuid) {
  if (!cvd) return true;
  std::string_view rest(cvd);
  while (true) {
    const std::size_t comma = rest.find(',');
    std::string_view entry = rest.substr(0, comma);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    const bool digits = !entry.empty() && std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) {
      if (entry.size() < 10 && std::stoul(std::string(entry)) == index) return true;
    } else if (entry.size() > 4 && entry.substr(0, 4) == "GPU-") {
      if (uuid.compare(0, entry.size(), entry) == 0) return true;
    } else {
      return false;  // CUDA stops at the first entry it cannot read ("-1", "", a MIG id here)
    }
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 1);
  }
}

std::string probe_nccl_version(std::string& reason) {
  Library lib(dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char* why = dlerror();
    reason = std::string("libnccl.so.2 not found (") + (why ? why : "dlopen failed") + ")";
    return {};
  }
  auto get_version = symbol<int (*)(int*)>(lib.get(), "ncclGetVersion");
  int code = 0;
  if (!get_version || get_version(&code) != 0 || code <= 0) {
    reason = "libnccl.so.2 has no working ncclGetVersion";
    return {};
  }
  // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9; major*1000+minor*100+patch before.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  int patch = code % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace cctune::topo
