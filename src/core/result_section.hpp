#pragma once
// A section of results.json whose format a module above core owns (topology: cctune.topology/1,
// net: cctune.net/1). Core may not name those modules' types (docs/ARCHITECTURE.md), so the
// section holds the owner's typed value type-erased, next to the JSON it was read from or
// written as. The owner's one accessor (topo::topology_of, net::probe_result_of) parses the
// JSON once and keeps the value; every later reader gets that value, never the keys.
//
// Why the JSON stays the written form: the owners' typed values are readers' views (a probe
// pair's transport fields, a node's raw probe details stay in the JSON), so writing a file
// back from them would drop fields. Writing serializes the JSON as held: output bytes do not
// change, and nothing a newer cctune wrote is lost.
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

namespace cctune {

class ResultSection {
 public:
  ResultSection() = default;  // absent
  // A section as a file holds it; null: absent.
  explicit ResultSection(nlohmann::json written) : json_(std::move(written)) {}

  bool present() const { return !json_.is_null(); }
  // The written form: what results.json holds under the section's key.
  const nlohmann::json& json() const { return json_; }

  // The owner's typed value; `parse(json())` runs on the first call only. Only the owner
  // calls this, always with its own T: another T is a programming error (std::logic_error).
  // A parse error propagates and nothing is cached. Not thread-safe: results are read by
  // one thread.
  template <class T, class Parse>
  const T& get(Parse&& parse) const {
    if (!cache_) cache_ = std::make_shared<const Typed<T>>(std::forward<Parse>(parse)(json_));
    const auto* typed = dynamic_cast<const Typed<T>*>(cache_.get());
    if (!typed) throw std::logic_error(std::string("ResultSection holds another type than ") + typeid(T).name());
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
  // Shared by copies (the value is immutable); set once, on the first successful get.
  mutable std::shared_ptr<const Erased> cache_;
};

}  // namespace cctune
