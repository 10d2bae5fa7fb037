#pragma once
// A section of results.json whose format a module above core owns (topology: cctune.topology/1,
// net: cctune.net/1, meta.settings: the runtime's resolved plan). Core may not name those
// modules' types (docs/ARCHITECTURE.md), so the section holds the owners' typed values
// type-erased, next to the JSON it was read from or written as. An owner's accessor
// (topo::topology_of, net::probe_result_of, runtime::plan_of) parses the JSON once and keeps
// the value; every later reader gets that value, never the keys. A section written in this
// process starts with the writer's value (seeded), so it is never parsed here at all.
//
// One value per type: meta.settings is one object whose parts are written by several modules
// (the plan by runtime, `space` and `workload` by the sweep drivers, `resumed` by resume, the
// test mode a core notion), and each reads its part into its own type, once.
//
// Why the JSON stays the written form: the owners' typed values are readers' views (a probe
// pair's transport fields, a node's raw probe details stay in the JSON), so writing a file
// back from them would drop fields. Writing serializes the JSON as held: output bytes do not
// change, and nothing a newer cctune wrote is lost.
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace cctune {

class ResultSection {
 public:
  ResultSection() = default;  // absent
  // A section as a file holds it; null: absent.
  explicit ResultSection(nlohmann::json written) : json_(std::move(written)) {}

  // A section a writer made in this process: `written` as the file will hold it, with the typed
  // value of type T it was made from already in place, so no reader here parses it again. The
  // writer's owner makes it, and `value` is what T's parser would make of `written`.
  template <class T>
  static ResultSection seeded(nlohmann::json written, T value) {
    ResultSection s(std::move(written));
    s.seed(std::move(value));
    return s;
  }
  // The same for one more type of a section several owners write (meta.settings): each owner
  // puts its part's value in place, replacing any earlier value of that type.
  template <class T>
  void seed(T value) {
    std::erase_if(views_, [](const auto& view) { return dynamic_cast<const Typed<T>*>(view.get()) != nullptr; });
    views_.push_back(std::make_shared<const Typed<T>>(std::move(value)));
  }

  bool present() const { return !json_.is_null(); }
  // The written form: what results.json holds under the section's key.
  const nlohmann::json& json() const { return json_; }

  // The typed value of type T; `parse(json())` runs on the first call for that T only. Only
  // T's owner calls this, always with its own parser. A parse error propagates and nothing is
  // cached. Not thread-safe: results are read by one thread.
  template <class T, class Parse>
  const T& get(Parse&& parse) const {
    for (const auto& view : views_)
      if (const auto* typed = dynamic_cast<const Typed<T>*>(view.get())) return typed->value;
    auto typed = std::make_shared<const Typed<T>>(std::forward<Parse>(parse)(json_));
    views_.push_back(typed);
    return typed->value;
  }

 private:
  struct Erased {
    virtual ~Erased() = default;
  };
  template <class T>
  struct Typed final : Erased {
    explicit Typed(T v) : value(std::move(v)) {}
    T value;
  };

  nlohmann::json json_;
  // Immutable values, so copies share them; one per type, added on its first successful get.
  mutable std::vector<std::shared_ptr<const Erased>> views_;
};

}  // namespace cctune
