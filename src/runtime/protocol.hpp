#pragma once
// The supervisor <-> worker protocol: one JSON object per line. The worker writes on fd 3
// (so NCCL's own stdout logging never mixes in); the supervisor writes on the worker's
// stdin. docs/RUNTIME.md lists every message.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error_kind.hpp"

namespace cctune::runtime {

// The fd a worker writes its messages on (the supervisor dup2's a pipe there).
inline constexpr int worker_message_fd = 3;

enum class MessageType { Hello, Uid, Ready, Progress, Point, Done, Error };
std::string to_string(MessageType t);
MessageType parse_message_type(const std::string& s);

struct Message {
  MessageType type = MessageType::Hello;
  nlohmann::json body = nlohmann::json::object();  // every field, "type" included
};

// One line, no trailing newline. decode throws cctune::RuntimeFailure on anything that is
// not a JSON object with a known "type".
std::string encode(const Message& m);
Message decode(const std::string& line);
// The "point" field of a progress or point message: an integer, or RuntimeFailure.
long message_point(const Message& m);

// Builders for each message, so both sides spell the fields the same way.
Message hello_message(int rank, int device, const std::string& pci_bus_id, const std::string& nccl_version,
                      const std::string& cuda);
Message uid_message(const std::string& uid_hex);
Message ready_message();
Message progress_message(long point);
Message point_message(long point, const nlohmann::json& result);
Message done_message();
Message error_message(const std::string& text, ErrorKind kind, const std::string& fix = {});

// The first line on a worker's stdin.
struct WorkerSpec {
  std::string group = "default";
  int nranks = 1;
  int rank = 0;
  int device = 0;
  int nnodes = 1;
  std::string host;
  bool graph = false;
  nlohmann::json plan = nlohmann::json::object();  // sweep plan (sweep_options to_json) + "configs"
};

nlohmann::json to_json(const WorkerSpec& s);
WorkerSpec worker_spec_from_json(const nlohmann::json& j);  // throws UsageError on a bad spec
// The spec line as a worker reads it: nesting beyond max_json_depth and bad syntax are
// refused (UsageError) before anything is parsed or read.
WorkerSpec parse_worker_spec(const std::string& line);

}  // namespace cctune::runtime
