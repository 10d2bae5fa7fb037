#pragma once
// Typed exchanges over RankComm (gloo's setInput<T> habit), so that callers never spell
// numbers or documents as text: allgather_as / broadcast_as for plain values and for types with
// a JSON codec (to_json / from_json beside the type), allgather_json / broadcast_json for
// documents.
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/rank_comm.hpp"

namespace cctune {

namespace detail {
// Outside text (worker output, argv, file names) may hold any bytes: invalid UTF-8 is
// replaced rather than thrown at the sender.
inline std::string dump_for_ranks(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }
}  // namespace detail

// Documents, parsed on arrival. The peers are ranks of the same job and build, so no depth
// limit is applied here.
inline std::vector<nlohmann::json> allgather_json(RankComm& comm, const nlohmann::json& mine) {
  std::vector<nlohmann::json> out;
  for (const std::string& text : comm.allgather(detail::dump_for_ranks(mine))) out.push_back(nlohmann::json::parse(text));
  return out;
}

inline nlohmann::json broadcast_json(RankComm& comm, const nlohmann::json& value, int root) {
  std::string text = comm.rank() == root ? detail::dump_for_ranks(value) : std::string();
  comm.broadcast(text, root);
  return nlohmann::json::parse(text);
}

// Every rank's `mine`, indexed by rank: plain values as their bytes (every rank runs the same
// build: version_check makes sure), any other T through its one JSON codec, as broadcast_as.
template <class T>
std::vector<T> allgather_as(RankComm& comm, const T& mine) {
  std::vector<T> out;
  if constexpr (std::is_trivially_copyable_v<T>) {
    const std::string bytes(reinterpret_cast<const char*>(&mine), sizeof(T));
    for (const std::string& b : comm.allgather(bytes)) {
      if (b.size() != sizeof(T))
        throw std::runtime_error("allgather_as: a rank sent " + std::to_string(b.size()) + " bytes, not " + std::to_string(sizeof(T)));
      T value;
      std::memcpy(&value, b.data(), sizeof(T));
      out.push_back(value);
    }
  } else {
    for (const nlohmann::json& j : allgather_json(comm, nlohmann::json(mine))) out.push_back(j.template get<T>());
  }
  return out;
}

// Rank `root`'s value on every rank (the others' `value` is ignored). Plain values travel as
// their bytes (every rank runs the same build: version_check makes sure), a string as itself,
// and any other T through its one JSON codec (to_json / from_json beside T, found by ADL), so
// that no caller spells a typed value's fields as JSON keys: a malformed value throws T's
// reader's error on the receiving ranks.
template <class T>
T broadcast_as(RankComm& comm, const T& value, int root) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    std::string bytes(reinterpret_cast<const char*>(&value), sizeof(T));
    comm.broadcast(bytes, root);
    if (bytes.size() != sizeof(T)) throw std::runtime_error("broadcast_as: the root sent " + std::to_string(bytes.size()) + " bytes");
    T out;
    std::memcpy(&out, bytes.data(), sizeof(T));
    return out;
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::string text = comm.rank() == root ? value : std::string();
    comm.broadcast(text, root);
    return text;
  } else {
    return broadcast_json(comm, comm.rank() == root ? nlohmann::json(value) : nlohmann::json(), root).template get<T>();
  }
}

}  // namespace cctune
