#include "app/run/plan_agreement.hpp"

#include <algorithm>

#include "comm/rank_comm_typed.hpp"
#include "core/error.hpp"

namespace cctune::app {
namespace {

using nlohmann::json;

// ASCII only (ensure_ascii escapes the rest), so a cut never splits a character and the
// line is safe for a terminal.
std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
  if (s.size() > 48) s = s.substr(0, 45) + "...";
  return s;
}

std::string entries(const json& list) {
  std::string s = std::to_string(list.size()) + (list.size() == 1 ? " entry" : " entries");
  if (!list.empty()) s += " (last " + shown(list.back()) + ")";
  return s;
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

bool differ(const json& a, const json& b, const std::string& path, PlanDifference& out) {
  if (a.is_object() && b.is_object()) {
    // nlohmann keeps object keys sorted: walk both in one order.
    for (const auto& [key, va] : a.items()) {
      const auto it = b.find(key);
      if (it == b.end()) {
        out = {join(path, key), shown(va), "none"};
        return true;
      }
      if (differ(va, *it, join(path, key), out)) return true;
    }
    for (const auto& [key, vb] : b.items())
      if (!a.contains(key)) {
        out = {join(path, key), "none", shown(vb)};
        return true;
      }
    return false;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) {
      // A size list or a group list of another length: say how long and where it ends,
      // which names the -b/-e/--sizes difference better than the first unequal entry.
      out = {path, entries(a), entries(b)};
      return true;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
      if (differ(a[i], b[i], path + "[" + std::to_string(i) + "]", out)) return true;
    return false;
  }
  if (a == b) return false;
  out = {path.empty() ? "plan" : path, shown(a), shown(b)};
  return true;
}

}  // namespace

std::uint64_t plan_hash(const json& settings) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : settings.dump(-1, ' ', false, json::error_handler_t::replace)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

PlanDifference first_plan_difference(const json& a, const json& b) {
  PlanDifference d;
  if (!differ(a, b, "", d)) return {};
  return d;
}

void agree_on_plan(RankComm& comm, const json& settings) {
  const std::vector<std::uint64_t> hashes = allgather_as(comm, plan_hash(settings));
  std::vector<int> others;
  for (std::size_t r = 1; r < hashes.size(); ++r)
    if (hashes[r] != hashes[0]) others.push_back(static_cast<int>(r));
  if (others.empty()) return;
  // Only now are the plans themselves exchanged, to name the difference: rank 0's against
  // the first rank that differs from it.
  const int first = others.front();
  json theirs = comm.rank() == first ? settings : json();
  theirs = broadcast_json(comm, theirs, first);
  const json ours = broadcast_json(comm, comm.rank() == 0 ? settings : json(), 0);
  const PlanDifference d = first_plan_difference(theirs, ours);
  std::string more;
  if (others.size() > 1) more = " (" + std::to_string(others.size() - 1) + " more rank(s) differ from rank 0 too)";
  throw UsageError("plan mismatch: rank " + std::to_string(first) + " has " + d.key + " " + d.a + ", rank 0 has " + d.b + more,
                   "launch every rank with the same arguments and the same space file");
}

}  // namespace cctune::app
