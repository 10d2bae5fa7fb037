#include "workload/pickle_decoder.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"

namespace cctune::workload {
namespace {

using nlohmann::json;

// A value as the pickle builds it. Containers are shared (the memo refers to the object being
// filled, as Python's does) and become JSON only when the whole pickle has been read.
struct Node {
  enum class Kind { None, Bool, Int, Float, Str, List, Dict } kind = Kind::None;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::shared_ptr<Node>> items;                                      // List (and tuples)
  std::vector<std::pair<std::shared_ptr<Node>, std::shared_ptr<Node>>> entries;  // Dict
};
using Ptr = std::shared_ptr<Node>;

const char* refused_name(unsigned char op) {
  switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: case 0x83: case 0x84: return "EXT";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'B': case 'C': case 0x8e: case 0x96: return "bytes";
    case 0x8f: case 0x90: case 0x91: return "set";
    case 0x97: case 0x98: return "out-of-band buffer";
    default: return nullptr;
  }
}

class Decoder {
 public:
  Decoder(std::string_view data, const std::string& source, const PickleLimits& limits) : data_(data), source_(source), limits_(limits) {}
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  // Containers may nest as deep as the pickle says, or hold themselves: each one's children are
  // let go while containers_ still holds every container, so no destructor recurses or leaks.
  ~Decoder() {
    for (const Ptr& c : containers_) {
      c->items.clear();
      c->entries.clear();
    }
  }

  json run() {
    for (;;) {
      const std::size_t at = pos_;
      const unsigned char op = byte();
      if (op == '.') break;
      step(op, at);
    }
    if (stack_.size() != 1 || !marks_.empty()) fail(pos_, "does not end with one value");
    std::size_t emitted = 0;
    return to_json(stack_.back(), 0, emitted);
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw UsageError(source_ + ": pickle offset " + std::to_string(at) + " " + what,
                     "pass the flight recorder's dump unchanged, or dump it as JSON (_dump_nccl_trace_json)");
  }
  unsigned char byte() {
    if (pos_ >= data_.size()) fail(pos_, "is past the end (the file is cut)");
    return static_cast<unsigned char>(data_[pos_++]);
  }
  std::uint64_t le(int n) {
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= std::uint64_t{byte()} << (8 * k);
    return v;
  }
  std::string_view take(std::uint64_t n) {
    if (n > data_.size() - pos_) fail(pos_, "holds a length past the end of the file");
    const std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  std::string_view line() {
    const std::size_t end = data_.find('\n', pos_);
    if (end == std::string_view::npos) fail(pos_, "holds a text argument without its newline");
    return take(end - pos_ + 1).substr(0, end - pos_);
  }
  Ptr make(Node::Kind k) {
    if (++built_ > limits_.values) fail(pos_, "builds more than " + std::to_string(limits_.values) + " values");
    auto n = std::make_shared<Node>();
    n->kind = k;
    if (k == Node::Kind::List || k == Node::Kind::Dict) containers_.push_back(n);
    return n;
  }
  void push(Ptr n) { stack_.push_back(std::move(n)); }
  Ptr pop(std::size_t at) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) fail(at, "pops an empty stack");
    Ptr n = std::move(stack_.back());
    stack_.pop_back();
    return n;
  }
  Ptr& top(std::size_t at) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) fail(at, "needs a value on the stack");
    return stack_.back();
  }
  // The values since the last MARK, removed from the stack.
  std::vector<Ptr> since_mark(std::size_t at) {
    if (marks_.empty()) fail(at, "needs a MARK");
    const std::size_t from = marks_.back();
    marks_.pop_back();
    std::vector<Ptr> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(from)), std::make_move_iterator(stack_.end()));
    stack_.resize(from);
    return out;
  }
  Ptr& container(std::size_t at, Node::Kind k) {
    Ptr& c = top(at);
    if (c->kind != k) fail(at, k == Node::Kind::Dict ? "adds items to something that is not a dict" : "appends to something that is not a list");
    return c;
  }
  void memo_put(std::uint64_t key, std::size_t at) {
    if (memo_.size() >= limits_.values && !memo_.contains(key)) fail(at, "memoizes too many values");
    memo_[key] = top(at);
  }
  void memo_get(std::uint64_t key, std::size_t at) {
    const auto it = memo_.find(key);
    if (it == memo_.end()) fail(at, "refers to a memo entry never stored");
    push(it->second);
  }
  void integer(std::int64_t v) {
    Ptr n = make(Node::Kind::Int);
    n->i = v;
    push(n);
  }
  void string(std::string_view s) {
    Ptr n = make(Node::Kind::Str);
    n->s = s;
    push(n);
  }
  void long_le(std::uint64_t n, std::size_t at) {
    if (n > 8) fail(at, "holds an integer wider than 64 bits");
    const std::string_view b = take(n);
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) v |= std::uint64_t{static_cast<unsigned char>(b[k])} << (8 * k);
    if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80)) v |= ~std::uint64_t{0} << (8 * n);  // sign
    integer(static_cast<std::int64_t>(v));
  }
  void tuple_of(std::vector<Ptr> items) {
    Ptr t = make(Node::Kind::List);
    t->items = std::move(items);
    push(t);
  }
  void set_items(std::vector<Ptr> kv, std::size_t at) {
    if (kv.size() % 2 != 0) fail(at, "sets a dict item without its value");
    Ptr& d = container(at, Node::Kind::Dict);
    for (std::size_t k = 0; k < kv.size(); k += 2) d->entries.emplace_back(std::move(kv[k]), std::move(kv[k + 1]));
  }
  void step(unsigned char op, std::size_t at);
  json to_json(const Ptr& n, int depth, std::size_t& emitted) const;

  std::string_view data_;
  const std::string& source_;
  PickleLimits limits_;
  std::size_t pos_ = 0, built_ = 0;
  std::vector<Ptr> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, Ptr> memo_;
  std::vector<Ptr> containers_;
};

void Decoder::step(unsigned char op, std::size_t at) {
  switch (op) {
    case 0x80: if (const unsigned char v = byte(); v < 2 || v > 5) fail(at, "is protocol " + std::to_string(v) + " (2 to 5 are read)"); break;
    case 0x95: le(8); break;  // FRAME: a hint of the frame's length
    case 'N': push(make(Node::Kind::None)); break;
    case 0x88: case 0x89: { Ptr n = make(Node::Kind::Bool); n->b = op == 0x88; push(n); break; }
    case 'J': integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(le(4)))); break;
    case 'K': integer(static_cast<std::int64_t>(le(1))); break;
    case 'M': integer(static_cast<std::int64_t>(le(2))); break;
    case 0x8a: long_le(le(1), at); break;
    case 0x8b: long_le(le(4), at); break;
    case 'G': {
      std::uint64_t bits = 0;
      for (int k = 0; k < 8; ++k) bits = (bits << 8) | byte();  // big-endian
      Ptr n = make(Node::Kind::Float);
      std::memcpy(&n->f, &bits, sizeof bits);
      push(n);
      break;
    }
    case 'X': string(take(le(4))); break;
    case 0x8c: string(take(le(1))); break;
    case 0x8d: string(take(le(8))); break;
    case 'U': string(take(le(1))); break;  // SHORT_BINSTRING: a str in Python 2 pickles
    case 'T': string(take(le(4))); break;
    case '}': push(make(Node::Kind::Dict)); break;
    case ']': case ')': push(make(Node::Kind::List)); break;
    case '(': marks_.push_back(stack_.size()); break;
    case '1': since_mark(at); break;
    case 'a': { Ptr v = pop(at); container(at, Node::Kind::List)->items.push_back(std::move(v)); break; }
    case 'e': { std::vector<Ptr> vs = since_mark(at); auto& items = container(at, Node::Kind::List)->items; for (Ptr& v : vs) items.push_back(std::move(v)); break; }
    case 's': { Ptr v = pop(at); Ptr k = pop(at); set_items({std::move(k), std::move(v)}, at); break; }
    case 'u': set_items(since_mark(at), at); break;
    case 't': case 'l': tuple_of(since_mark(at)); break;
    case 'd': { std::vector<Ptr> kv = since_mark(at); push(make(Node::Kind::Dict)); set_items(std::move(kv), at); break; }
    case 0x85: { Ptr a = pop(at); tuple_of({a}); break; }
    case 0x86: { Ptr b = pop(at); Ptr a = pop(at); tuple_of({a, b}); break; }
    case 0x87: { Ptr c = pop(at); Ptr b = pop(at); Ptr a = pop(at); tuple_of({a, b, c}); break; }
    case '0': pop(at); break;
    case '2': push(top(at)); break;
    case 'q': memo_put(le(1), at); break;
    case 'r': memo_put(le(4), at); break;
    case 0x94: memo_put(memo_.size(), at); break;
    case 'h': memo_get(le(1), at); break;
    case 'j': memo_get(le(4), at); break;
    default:
      if (const char* name = refused_name(op)) fail(at, std::string("holds ") + name + ", which builds an object; only plain values are read");
      fail(at, "holds opcode " + std::to_string(op) + ", which is not read (protocol 2 to 5, plain values only)");
  }
}

json Decoder::to_json(const Ptr& n, int depth, std::size_t& emitted) const {
  // Shared values count each time they appear: the result's size is bounded, not only the pickle's.
  if (++emitted > limits_.values) fail(pos_, "gives more than " + std::to_string(limits_.values) + " values");
  switch (n->kind) {
    case Node::Kind::None: return nullptr;
    case Node::Kind::Bool: return n->b;
    case Node::Kind::Int: return n->i;
    case Node::Kind::Float: return n->f;
    case Node::Kind::Str: return n->s;
    default: break;
  }
  if (depth >= limits_.depth) fail(pos_, "nests deeper than " + std::to_string(limits_.depth) + " levels (or refers to itself)");
  if (n->kind == Node::Kind::List) {
    json out = json::array();
    for (const Ptr& item : n->items) out.push_back(to_json(item, depth + 1, emitted));
    return out;
  }
  json out = json::object();
  for (const auto& [k, v] : n->entries) {
    std::string key;
    if (k->kind == Node::Kind::Str) key = k->s;
    else if (k->kind == Node::Kind::Int) key = std::to_string(k->i);
    else fail(pos_, "holds a dict key that is neither str nor int");
    out[key] = to_json(v, depth + 1, emitted);
  }
  return out;
}

}  // namespace

json decode_pickle(std::string_view data, const std::string& source, const PickleLimits& limits) {
  return Decoder(data, source, limits).run();
}

}  // namespace cctune::workload
