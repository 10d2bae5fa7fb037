#include "runtime/protocol.hpp"

#include <array>

#include "core/error.hpp"
#include "core/error_record.hpp"
#include "core/json_depth.hpp"
#include "core/text.hpp"

namespace cctune::runtime {
namespace {
constexpr std::array<const char*, 7> type_names = {"hello", "uid", "ready", "progress", "point", "done", "error"};

Message make(MessageType t, nlohmann::json fields = nlohmann::json::object()) {
  fields["type"] = to_string(t);
  return {t, std::move(fields)};
}
}  // namespace

std::string to_string(MessageType t) { return type_names[static_cast<std::size_t>(t)]; }

MessageType parse_message_type(const std::string& s) {
  for (std::size_t i = 0; i < type_names.size(); ++i)
    if (s == type_names[i]) return static_cast<MessageType>(i);
  throw RuntimeFailure("unknown worker message type '" + text::truncate_utf8(s, 64) + "'", "supervisor and worker must be the same cctune build");
}

std::string encode(const Message& m) {
  nlohmann::json j = m.body;
  j["type"] = to_string(m.type);
  return text::dump_json(j);  // dump() escapes newlines inside strings, so one message is one line
}

Message decode(const std::string& line) {
  if (json_nests_deeper_than(line))
    throw RuntimeFailure("worker message nests deeper than " + std::to_string(max_json_depth) + " levels: " + text::truncate_utf8(line, 200),
                         "supervisor and worker must be the same cctune build");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    throw RuntimeFailure("malformed worker message: " + text::truncate_utf8(line, 200), "supervisor and worker must be the same cctune build");
  }
  if (const std::string bad = json_float_beyond_int(j); !bad.empty())
    throw RuntimeFailure("worker message: " + bad + ", out of range: " + text::truncate_utf8(line, 200),
                         "supervisor and worker must be the same cctune build");
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw RuntimeFailure("worker message without a type: " + text::truncate_utf8(line, 200), "supervisor and worker must be the same cctune build");
  return {parse_message_type(j["type"].get<std::string>()), std::move(j)};
}

long message_point(const Message& m) {
  const auto it = m.body.find("point");
  // is_number_integer: a float such as 1e300 would not convert to long (undefined behaviour).
  if (it == m.body.end() || !it->is_number_integer())
    throw RuntimeFailure(to_string(m.type) + " message without an integer \"point\"", "supervisor and worker must be the same cctune build");
  return it->get<long>();
}

Message hello_message(int rank, int device, const std::string& pci_bus_id, const std::string& nccl_version,
                      const std::string& cuda) {
  return make(MessageType::Hello,
              {{"rank", rank}, {"device", device}, {"pci_bus_id", pci_bus_id}, {"nccl_version", nccl_version}, {"cuda", cuda}});
}
Message uid_message(const std::string& uid_hex) { return make(MessageType::Uid, {{"uid", uid_hex}}); }
Message ready_message() { return make(MessageType::Ready); }
Message progress_message(long point) { return make(MessageType::Progress, {{"point", point}}); }
Message point_message(long point, const nlohmann::json& result) {
  return make(MessageType::Point, {{"point", point}, {"result", result}});
}
Message done_message() { return make(MessageType::Done); }
Message error_message(const std::string& text, ErrorKind kind, const std::string& fix) {
  return make(MessageType::Error, to_json(ErrorRecord{kind, text, fix, {}}));
}

nlohmann::json to_json(const WorkerSpec& s) {
  nlohmann::json j = {{"group", s.group}, {"nranks", s.nranks}, {"rank", s.rank}, {"device", s.device},
                      {"nnodes", s.nnodes}, {"host", s.host},     {"graph", s.graph}, {"plan", s.plan}};
  return j;
}

WorkerSpec worker_spec_from_json(const nlohmann::json& j) {
  if (const std::string bad = json_float_beyond_int(j); !bad.empty())
    throw UsageError("worker spec: " + bad + ", out of range", "`cctune __worker` is started by `cctune sweep`, not by hand");
  try {
    WorkerSpec s;
    s.group = j.at("group").get<std::string>();
    s.nranks = j.at("nranks").get<int>();
    s.rank = j.at("rank").get<int>();
    s.device = j.at("device").get<int>();
    s.nnodes = j.value("nnodes", 1);
    s.host = j.value("host", "");
    s.graph = j.value("graph", false);
    s.plan = j.at("plan");
    if (s.nranks < 1 || s.rank < 0 || s.rank >= s.nranks || s.device < 0)
      throw UsageError("worker spec has rank " + std::to_string(s.rank) + " of " + std::to_string(s.nranks) + ", device " + std::to_string(s.device),
                       "`cctune __worker` is started by `cctune sweep`, not by hand");
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("malformed worker spec: ") + e.what(), "`cctune __worker` is started by `cctune sweep`, not by hand");
  }
}

WorkerSpec parse_worker_spec(const std::string& line) {
  const char* fix = "`cctune __worker` is started by `cctune sweep`, not by hand";
  if (json_nests_deeper_than(line)) throw UsageError("worker spec nests deeper than " + std::to_string(max_json_depth) + " levels", fix);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 5e555
    throw UsageError(std::string("worker spec is not valid JSON: ") + e.what(), fix);
  }
  return worker_spec_from_json(j);
}

}  // namespace cctune::runtime
