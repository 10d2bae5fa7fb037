#include "app/cli/type_options.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"

namespace cctune::app {
namespace {

// One entry of a list: its value, and whether the user named it or `all` brought it.
template <class T>
struct Entry {
  T value;
  bool named = false;
};

template <class T, class Parse>
std::vector<Entry<T>> parse_list(const std::string& text, const char* flag, const std::vector<T>& every, Parse parse) {
  std::vector<Entry<T>> out;
  auto add = [&](T v, bool named) {
    const auto it = std::find_if(out.begin(), out.end(), [&](const Entry<T>& e) { return e.value == v; });
    if (it == out.end()) out.push_back({v, named});
    else it->named = it->named || named;
  };
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "all") {
      for (T v : every) add(v, false);
    } else if (!item.empty()) {
      try {
        add(parse(item), true);
      } catch (const UsageError& e) {
        throw UsageError(std::string(flag) + ": " + e.what_only(), e.fix() + ", a comma-separated list of them, or all");
      }
    }
  }
  if (out.empty()) throw UsageError(std::string(flag) + " '" + text + "' names nothing", std::string("name at least one, e.g. ") + flag + " " + to_string(every.front()));
  return out;
}

// The first planned collective `backend` cannot run with (dtype, op), if any.
std::optional<Incapability> lack_of(BackendKind backend, const std::vector<Collective>& collectives, DType dtype, ReduceOp op) {
  for (Collective c : collectives)
    if (auto why = incapability(backend, c, dtype, op)) return why;
  return std::nullopt;
}

}  // namespace

namespace {
// Judges the listed types and ops against what `backend` runs with `collectives`.
TypeChoice judge_types(const std::vector<Entry<DType>>& dtypes, const std::vector<Entry<ReduceOp>>& ops,
                       const std::vector<Collective>& collectives, BackendKind backend, const std::string& dtype_text,
                       const std::string& op_text) {
  const bool reduces = std::any_of(collectives.begin(), collectives.end(), is_reduction);
  // A data type is judged with a runnable op (sum always is), an op with a runnable type.
  TypeChoice out;
  for (const auto& d : dtypes) {
    const auto why = lack_of(backend, collectives, d.value, ReduceOp::Sum);
    if (why && d.named) throw UsageError(why->what, why->fix);
    if (!why) out.dtypes.push_back(d.value);
  }
  for (const auto& o : ops) {
    std::optional<Incapability> why;
    if (reduces)
      for (DType d : out.dtypes)
        if (!why) why = lack_of(backend, collectives, d, o.value);
    if (why && o.named) throw UsageError(why->what, why->fix);
    if (!why) out.ops.push_back(o.value);
  }
  if (out.dtypes.empty() || out.ops.empty())
    throw UsageError("the " + to_string(backend) + " backend runs none of -d " + dtype_text + " / --op " + op_text, "name other types or ops");
  return out;
}
}  // namespace

TypeChoice resolve_types(const std::string& dtype_text, const std::string& op_text, const std::vector<Collective>& collectives,
                         BackendKind backend) {
  return judge_types(parse_list(dtype_text, "-d/--dtype", all_dtypes(), parse_dtype),
                     parse_list(op_text, "--op", all_reduce_ops(), parse_reduce_op), collectives, backend, dtype_text, op_text);
}

TypeChoice resolve_types(const std::vector<DType>& dtypes, const std::string& op_text, const std::vector<Collective>& collectives,
                         BackendKind backend) {
  std::vector<Entry<DType>> named;
  std::string names;
  for (DType d : dtypes) {
    if (std::none_of(named.begin(), named.end(), [&](const Entry<DType>& e) { return e.value == d; })) named.push_back({d, true});
    names += (names.empty() ? "" : ",") + to_string(d);
  }
  if (named.empty()) throw UsageError("the plan names no data type", "name at least one, e.g. -d float32");
  return judge_types(named, parse_list(op_text, "--op", all_reduce_ops(), parse_reduce_op), collectives, backend, names, op_text);
}

}  // namespace cctune::app
