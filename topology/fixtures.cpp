#include "topology/fixtures.hpp"

#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/json_depth.hpp"
#include "core/files.hpp"
#include "topology/hwloc_probe.hpp"
#include "topology/node_probe.hpp"
#include "topology/nvml_probe.hpp"
#include "topology/topology_json.hpp"

namespace cctune::topo {

namespace {

std::string read_input(const std::string& path) {
  try {
    return read_file(path);
  } catch (const Error& e) {
    throw UsageError("cannot read " + path + ": " + e.what_only());
  }
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

int leading_int(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (...) {
    return 0;
  }
}

// One XML start tag: name and attributes. Enough for NCCL's flat topology dumps.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attrs;
  bool closing = false;
  bool self_closing = false;
};

std::vector<Tag> scan_xml(const std::string& text, const std::string& origin) {
  std::vector<Tag> tags;
  std::vector<std::string> open;
  std::size_t pos = 0;
  while ((pos = text.find('<', pos)) != std::string::npos) {
    auto end = text.find('>', pos);
    if (end == std::string::npos) throw UsageError(origin + " is truncated: a tag is not closed");
    std::string body = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (body.empty() || body[0] == '?' || body[0] == '!') continue;
    Tag t;
    t.closing = body[0] == '/';
    if (t.closing) body.erase(0, 1);
    t.self_closing = !body.empty() && body.back() == '/';
    if (t.self_closing) body.pop_back();
    std::istringstream in(body);
    in >> t.name;
    std::string rest;
    std::getline(in, rest);
    for (std::size_t i = 0; (i = rest.find('=', i)) != std::string::npos;) {
      auto key_start = rest.find_last_of(" \t\n", i);
      std::string key = trim(rest.substr(key_start == std::string::npos ? 0 : key_start + 1, i - key_start - 1));
      auto q1 = rest.find('"', i), q2 = rest.find('"', q1 + 1);
      if (q1 == std::string::npos || q2 == std::string::npos)
        throw UsageError(origin + " is not valid XML: bad attribute in <" + t.name + ">");
      t.attrs[key] = rest.substr(q1 + 1, q2 - q1 - 1);
      i = q2 + 1;
    }
    if (t.closing) {
      if (open.empty() || open.back() != t.name)
        throw UsageError(origin + " is not valid XML: unexpected </" + t.name + ">");
      open.pop_back();
    } else if (!t.self_closing) {
      open.push_back(t.name);
    }
    tags.push_back(std::move(t));
  }
  if (!open.empty()) throw UsageError(origin + " is truncated: <" + open.back() + "> is never closed");
  if (tags.empty()) throw UsageError(origin + " is not an XML file");
  return tags;
}

unsigned architecture_for_sm(int sm) {
  if (sm >= 100) return 10;  // Blackwell
  if (sm >= 90) return 9;    // Hopper
  if (sm >= 80) return 7;    // Ampere
  if (sm >= 70) return 5;    // Volta
  return 0;
}

}  // namespace

NodeTopology load_node_fixture(const std::string& hwloc_xml_path, const std::string& facts_json_path) {
  NodeTopology node;
  try {
    const std::string text = read_input(facts_json_path);
    if (json_nests_deeper_than(text)) throw UsageError("nests arrays/objects deeper than " + std::to_string(max_json_depth) + " levels");
    const nlohmann::json doc = nlohmann::json::parse(text);
    if (const std::string bad = json_float_beyond_int(doc); !bad.empty()) throw UsageError(bad + ", out of range for its field");
    node = node_from_json(doc);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("fixture " + facts_json_path + " is not valid: " + e.what());
  } catch (const UsageError& e) {
    throw UsageError("fixture " + facts_json_path + " is not valid: " + e.what_only());
  }
  if (node.source.empty()) node.source = "fixture " + hwloc_xml_path;
  apply_hwloc(read_hwloc_xml(hwloc_xml_path), node);
  return node;
}

NvidiaSmiFacts parse_nvidia_smi_q(const std::string& text, const std::string& origin) {
  NvidiaSmiFacts f;
  std::vector<std::pair<std::size_t, std::string>> headers;  // (indent, name)
  std::vector<std::map<std::string, std::string>> gpu_fields;
  std::istringstream in(text);
  std::string line;
  bool saw_header = false;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    std::size_t indent = line.find_first_not_of(' ');
    auto colon = line.find(" : ");
    std::string key = trim(colon == std::string::npos ? line : line.substr(0, colon));
    std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + 3));
    if (key.find("NVSMI LOG") != std::string::npos) saw_header = true;
    if (indent == 0 && key.rfind("GPU ", 0) == 0) {
      gpu_fields.push_back({{"Bus Id", key.substr(4)}});
      headers.clear();
      continue;
    }
    if (indent == 0) {
      if (key == "Driver Version") f.driver = value;
      if (key == "CUDA Version") f.cuda = value;
      continue;
    }
    while (!headers.empty() && headers.back().first >= indent) headers.pop_back();
    if (colon == std::string::npos) {
      headers.emplace_back(indent, key);
      continue;
    }
    if (gpu_fields.empty()) continue;
    std::string path;
    for (const auto& h : headers) path += h.second + "/";
    gpu_fields.back()[path + key] = value;
  }
  if (!saw_header || gpu_fields.empty())
    throw UsageError(origin + " is not `nvidia-smi -q` output (no NVSMI LOG header or no GPU section)");
  for (std::size_t i = 0; i < gpu_fields.size(); ++i) {
    auto& m = gpu_fields[i];
    auto get = [&](const std::string& k) { auto it = m.find(k); return it == m.end() ? std::string() : it->second; };
    Gpu g;
    g.index = static_cast<int>(i);
    g.pci_bus_id = normalize_pci_bus_id(m["Bus Id"]);
    g.name = get("Product Name");
    g.uuid = get("GPU UUID");
    if (g.name.empty() || g.uuid.empty())
      throw UsageError(origin + " is truncated: GPU " + m["Bus Id"] + " has no Product Name or GPU UUID");
    g.memory_bytes = static_cast<std::uint64_t>(leading_int(get("FB Memory Usage/Total"))) << 20;  // MiB
    const std::string link = "PCI/GPU Link Info/";
    g.pcie_generation = leading_int(get(link + "PCIe Generation/Current"));
    g.pcie_max_generation = leading_int(get(link + "PCIe Generation/Max"));
    g.pcie_width = leading_int(get(link + "Link Width/Current"));
    g.pcie_max_width = leading_int(get(link + "Link Width/Max"));
    f.gpus.push_back(g);
  }
  return f;
}

void apply_nccl_topo_xml(const std::string& text, const std::string& origin, std::vector<Gpu>& gpus) {
  std::vector<Tag> tags = scan_xml(text, origin);
  if (tags.front().name != "system") throw UsageError(origin + " is not an NCCL topology dump (no <system>)");
  std::string pci_bus_id;  // of the innermost open <pci>
  Gpu* gpu = nullptr;
  double speed_GBps = 0;
  for (const auto& t : tags) {
    if (t.name == "pci" && !t.closing) pci_bus_id = normalize_pci_bus_id(t.attrs.count("busid") ? t.attrs.at("busid") : "");
    if (t.name == "gpu" && t.closing) gpu = nullptr;
    if (t.name == "gpu" && !t.closing) {
      gpu = nullptr;
      for (auto& g : gpus)
        if (g.pci_bus_id == pci_bus_id) gpu = &g;
      int sm = t.attrs.count("sm") ? leading_int(t.attrs.at("sm")) : 0;
      speed_GBps = nvlink_speed_for_architecture(architecture_for_sm(sm));
    }
    if (t.name == "nvlink" && !t.closing && gpu) {
      int count = t.attrs.count("count") ? leading_int(t.attrs.at("count")) : 0;
      std::string tclass = t.attrs.count("tclass") ? t.attrs.at("tclass") : "";
      std::string target = normalize_pci_bus_id(t.attrs.count("target") ? t.attrs.at("target") : "");
      // tclass 0x0680xx: an NVSwitch (bridge, "other"); 0x0302xx/0x0300xx: a GPU.
      std::string type = tclass.rfind("0x0680", 0) == 0 ? "switch"
                         : (tclass.rfind("0x0302", 0) == 0 || tclass.rfind("0x0300", 0) == 0) ? "gpu"
                                                                                               : "unknown";
      for (int i = 0; i < count; ++i) {
        NvLink l;
        l.link = static_cast<int>(gpu->nvlinks.size());
        l.active = true;
        l.speed_GBps = speed_GBps;
        l.remote_pci_bus_id = target;
        l.remote_type = type;
        gpu->nvlinks.push_back(l);
      }
    }
  }
}

NodeTopology node_from_nvidia_smi_and_nccl(const std::string& nvsmi_path, const std::string& nccl_path,
                                           const std::string& hostname) {
  NvidiaSmiFacts smi = parse_nvidia_smi_q(read_input(nvsmi_path), nvsmi_path);
  apply_nccl_topo_xml(read_input(nccl_path), nccl_path, smi.gpus);
  NodeTopology node;
  node.hostname = hostname;
  node.source = "nvidia-smi -q " + nvsmi_path + " + NCCL topology " + nccl_path;
  node.gpus = std::move(smi.gpus);
  node.software.driver = smi.driver;
  node.software.cuda_driver = smi.cuda;
  return node;
}

}  // namespace cctune::topo
