// diagnosis.json, schema cctune.diagnosis/1 (docs/DIAGNOSE.md): the document and its reading
// back as a baseline.
#include "app/diagnose/diagnosis_doc.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"

namespace cctune::app::diagnose {
namespace {

namespace dg = cctune::diagnose;
using nlohmann::json;

json suspect_json(const dg::Suspect& s) {
  json j = {{"kind", dg::to_string(s.kind)}, {"host", s.host}, {"figure", s.figure}, {"median", s.median},
            {"unit", s.unit}, {"evidence", s.evidence}};
  j["gpu"] = s.kind == dg::SuspectKind::Gpu ? json(s.gpu) : json(nullptr);
  j["peer"] = s.kind == dg::SuspectKind::Pair ? json(s.peer) : json(nullptr);
  j["nic"] = s.kind == dg::SuspectKind::Nic && !s.nic.empty() ? json(s.nic) : json(nullptr);
  j["limit"] = s.limit > 0 ? json(s.limit) : json(nullptr);
  j["baseline"] = s.baseline > 0 ? json(s.baseline) : json(nullptr);
  return j;
}

// Figures of 0 mean "not measured" in the document's values and null in JSON.
json figure(double v) { return v > 0 ? json(v) : json(nullptr); }
double figure_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? 0 : it->get<double>();
}

}  // namespace

json to_json(const DiagnosisDoc& d) {
  json j;
  j["schema"] = diagnosis_schema;
  j["cluster"] = {{"backend", d.backend}, {"nodes", d.hosts.size()}, {"hosts", d.hosts}, {"gpus_per_node", d.gpus_per_node},
                  {"test_mode", d.test_mode.empty() ? json(nullptr) : json(d.test_mode)}};
  j["sizes"] = {{"latency_bytes", d.latency_bytes}, {"bandwidth_bytes", d.bandwidth_bytes}};
  j["pairs"] = d.pairs;
  j["baseline"] = d.baseline_path.empty() ? json(nullptr) : json(d.baseline_path);
  json stages = json::array();
  for (const auto& s : d.stages)
    stages.push_back({{"name", s.name}, {"rounds", s.rounds}, {"duration_s", s.duration_s},
                      {"skipped_why", s.rounds == 0 ? json(s.skipped_why) : json(nullptr)}});
  j["stages"] = stages;
  json gpus = json::array(), nodes = json::array(), pairs = json::array();
  for (const auto& g : d.gpus)
    gpus.push_back({{"host", g.host}, {"gpu", g.gpu}, {"time_us", figure(g.time_us)}, {"last_fraction", g.last_fraction}});
  for (const auto& n : d.nodes)
    nodes.push_back({{"host", n.host}, {"gpus", n.gpus}, {"busbw_GBps", figure(n.busbw_gbps)}, {"latency_us", figure(n.latency_us)},
                     {"limit_GBps", figure(n.limit_gbps)}});
  for (const auto& p : d.pairs_measured)
    pairs.push_back({{"hosts", {p.host_a, p.host_b}},
                     {"probe_GBps", figure(p.probe_gbps)},
                     {"probe_limit_GBps", figure(p.probe_limit_gbps)},
                     {"probe_latency_us", figure(p.probe_latency_us)},
                     {"probe_error", p.probe_error.empty() ? json(nullptr) : json(p.probe_error)},
                     {"busbw_GBps", figure(p.busbw_gbps)},
                     {"busbw_limit_GBps", figure(p.busbw_limit_gbps)},
                     {"latency_us", figure(p.latency_us)}});
  json stragglers = json::array();
  for (const auto& s : d.stragglers)
    stragglers.push_back({{"host", s.host}, {"gpu", s.gpu}, {"rank", s.rank}, {"last_pct", s.last_pct},
                          {"others_wait_us", s.others_wait_us}, {"op_us", s.op_us}, {"points_named", s.points_named},
                          {"points_measured", s.points_measured}});
  j["figures"] = {{"gpus", gpus}, {"stragglers", stragglers}, {"nodes", nodes}, {"pairs", pairs},
                  {"all_nodes", {{"busbw_GBps", figure(d.all_busbw_gbps)}, {"latency_us", figure(d.all_latency_us)}}}};
  json suspects = json::array();
  for (const auto& s : d.diagnosis.suspects) suspects.push_back(suspect_json(s));
  j["suspects"] = suspects;
  j["notes"] = d.diagnosis.notes;
  j["interrupted"] = d.interrupted;
  j["verdict"] = verdict(d);
  return j;
}

DiagnosisDoc parse_diagnosis(const json& j, const std::string& source) {
  if (!j.is_object() || j.value("schema", "") != diagnosis_schema)
    throw UsageError(source + " is not a cctune diagnosis (schema " + diagnosis_schema + ")",
                     "give the diagnosis.json that cctune diagnose wrote in its -o directory");
  DiagnosisDoc d;
  try {
    const json& c = j.at("cluster");
    d.backend = c.at("backend").get<std::string>();
    d.hosts = c.at("hosts").get<std::vector<std::string>>();
    d.gpus_per_node = c.at("gpus_per_node").get<int>();
    d.latency_bytes = j.at("sizes").at("latency_bytes").get<std::uint64_t>();
    d.bandwidth_bytes = j.at("sizes").at("bandwidth_bytes").get<std::uint64_t>();
    d.pairs = j.at("pairs").get<std::string>();
    d.interrupted = j.value("interrupted", false);
    const json& f = j.at("figures");
    for (const auto& g : f.at("gpus"))
      d.gpus.push_back({g.at("host").get<std::string>(), g.at("gpu").get<int>(), figure_of(g, "time_us"), figure_of(g, "last_fraction")});
    for (const auto& n : f.at("nodes"))
      d.nodes.push_back({n.at("host").get<std::string>(), n.at("gpus").get<int>(), figure_of(n, "busbw_GBps"),
                         figure_of(n, "latency_us"), figure_of(n, "limit_GBps")});
    for (const auto& p : f.at("pairs")) {
      PairResult r;
      r.host_a = p.at("hosts").at(0).get<std::string>();
      r.host_b = p.at("hosts").at(1).get<std::string>();
      r.probe_gbps = figure_of(p, "probe_GBps");
      r.probe_limit_gbps = figure_of(p, "probe_limit_GBps");
      r.busbw_gbps = figure_of(p, "busbw_GBps");
      r.busbw_limit_gbps = figure_of(p, "busbw_limit_GBps");
      r.latency_us = figure_of(p, "latency_us");
      d.pairs_measured.push_back(std::move(r));
    }
    d.all_busbw_gbps = figure_of(f.at("all_nodes"), "busbw_GBps");
    d.all_latency_us = figure_of(f.at("all_nodes"), "latency_us");
  } catch (const json::exception& e) {
    throw UsageError(source + " is not a valid cctune diagnosis: " + e.what(), "give a diagnosis.json written by cctune diagnose");
  }
  return d;
}

DiagnosisDoc load_diagnosis(const std::string& path) {
  const std::string where = "--baseline " + path;
  const std::string fix = "give a diagnosis.json written by cctune diagnose";
  // An outside file: bounded in size (read_file) and nesting before parsing, and no float
  // beyond int's range where an integer field is read.
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error& e) {
    throw UsageError(where + ": " + e.what_only(), fix);
  }
  if (json_nests_deeper_than(text))
    throw UsageError(where + " nests arrays/objects deeper than " + std::to_string(max_json_depth) + " levels", fix);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(where + " is not JSON: " + e.what(), fix);
  }
  if (const std::string bad = json_float_beyond_int(j); !bad.empty()) throw UsageError(where + ": " + bad + ", out of range for its field", fix);
  return parse_diagnosis(j, where);
}

}  // namespace cctune::app::diagnose
