// Machine-readable views of a Comparison: CSV (long format) and JSON (cctune.compare/1).
#include "app/report/escaping.hpp"
#include "app/report/printers.hpp"
#include "app/report/comparison_build.hpp"

namespace cctune::app::report {

using nlohmann::json;

namespace {

std::string status_of(const PointResult* p) { return p ? to_string(p->status) : "missing"; }

json table_key_json(const TableKey& k) {
  json j{{"collective", to_string(k.collective)}, {"dtype", to_string(k.dtype)}, {"in_place", k.in_place}};
  if (k.op) j["op"] = to_string(*k.op);
  if (k.root) j["root"] = *k.root;
  return j;
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

void print_csv(std::ostream& out, const Comparison& c) {
  out << "section,collective,dtype,in_place,size_bytes,series,config,status,busbw_GBps,time_us,ratio,op,root\n";
  auto line = [&](const std::string& section, const TableKey& k, std::uint64_t size, const std::string& series, const PointResult* p,
                  const std::optional<double>& ratio) {
    const bool ok = p && p->status == PointStatus::Ok;
    out << section << "," << to_string(k.collective) << "," << to_string(k.dtype) << "," << (k.in_place ? "true" : "false") << "," << size
        << "," << csv_field(series) << "," << (p ? csv_field(describe(p->config)) : "") << "," << status_of(p) << ","
        << (ok ? format_fixed(p->busbw_GBps, 4) : "") << "," << (ok ? format_fixed(p->batch_us, 3) : "") << ","
        << (ratio ? format_fixed(*ratio, 4) : "") << "," << (k.op ? to_string(*k.op) : "") << "," << (k.root ? std::to_string(*k.root) : "")
        << "\n";
  };
  for (const auto& t : c.tables)
    for (const auto& r : t.rows)
      for (std::size_t s = 0; s < r.cells.size(); ++s) line("compare", t.key, r.size_bytes, c.series[s].label, r.cells[s].point, r.cells[s].ratio);
  // For tuned rows the ratio is the speedup over the NCCL-default point (time_default / time_tuned).
  for (const auto& t : c.tuned)
    for (const auto& r : t.rows) line("tuned", t.key, r.size_bytes, c.series[t.series].label, r.best_tuned, r.speedup);
}

json to_json(const Comparison& c) {
  json series = json::array();
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const RunResult& r = c.run_of(s);
    series.push_back({{"label", s.label}, {"file", file_name(c.files[s.file], s.file)}, {"group", r.group}, {"backend", r.backend},
                      {"nranks", r.nranks}, {"nnodes", r.nnodes}, {"status", to_string(r.status)}, {"reason", r.reason}});
    if (const std::string mode = c.test_mode_of_series(i); !mode.empty()) series.back()["test_mode"] = mode;
  }
  json tables = json::array();
  for (const auto& t : c.tables) {
    json rows = json::array();
    for (const auto& r : t.rows) {
      json cells = json::array();
      for (const auto& cell : r.cells) {
        const PointResult* p = cell.point;
        const bool ok = p && p->status == PointStatus::Ok;
        cells.push_back({{"status", status_of(p)},
                         {"config", p ? json(describe(p->config)) : json(nullptr)},
                         {"best_of_tuned", cell.best_of_tuned},
                         {"busbw_GBps", ok ? json(p->busbw_GBps) : json(nullptr)},
                         {"time_us", ok ? json(p->batch_us) : json(nullptr)},
                         {"ratio", optional_number(cell.ratio)}});
      }
      rows.push_back({{"size_bytes", r.size_bytes}, {"cells", cells}});
    }
    json tj = table_key_json(t.key);
    tj["rows"] = rows;
    tables.push_back(tj);
  }
  json tuned = json::array();
  for (const auto& t : c.tuned) {
    json rows = json::array();
    for (const auto& r : t.rows) {
      const PointResult* d = r.default_point;
      rows.push_back({{"size_bytes", r.size_bytes},
                      {"default_busbw_GBps", d ? json(d->busbw_GBps) : json(nullptr)},
                      {"default_time_us", d ? json(d->batch_us) : json(nullptr)},
                      {"nccl_chose", d && d->chosen_algo ? json(algo_proto_name(d->chosen_algo, d->chosen_proto)) : json(nullptr)},
                      {"tuned_config", describe(r.best_tuned->config)},
                      {"tuned_busbw_GBps", r.best_tuned->busbw_GBps},
                      {"tuned_time_us", r.best_tuned->batch_us},
                      {"speedup", optional_number(r.speedup)}});
    }
    json tj = table_key_json(t.key);
    tj["series"] = c.series[t.series].label;
    tj["rows"] = rows;
    tuned.push_back(tj);
  }
  json problems = json::array();
  for (const auto& p : c.problems)
    problems.push_back({{"series", c.series[p.series].label}, {"kind", p.kind}, {"what", p.what}, {"reason", p.reason}});
  return json{{"schema", "cctune.compare/1"}, {"series", series},   {"mismatches", c.mismatches},
              {"tables", tables},             {"tuned", tuned},     {"problems", problems}};
}

}  // namespace cctune::app::report
