// PyTorch's flight recorder beyond the real captures in import_test.cpp: hashed group names,
// empty dumps, checked sizes and durations, errors that name the file, and the pickle form
// decoded by the restricted decoder (workload/pickle_decoder.hpp). The pickles are built here
// opcode by opcode as torch's jit Pickler (protocol 2) and Python's pickle (protocol 4) write
// them; each test fails on 8646a77.
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.hpp"
#include "workload/flight_recorder_import.hpp"
#include "workload/pickle_decoder.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

using nlohmann::json;

constexpr const char* kHash = "5a1c0a5b3f1e0d9a6c7b8e2f4d3c2b1a09876543";

json entry(const std::string& pg, const char* name = "nccl:all_reduce", std::uint64_t numel = 1024) {
  return json{{"record_id", 0},          {"pg_id", 0},
              {"process_group", {pg, "default_pg"}},
              {"collective_seq_id", 1},  {"p2p_seq_id", 0},
              {"profiling_name", name},  {"input_sizes", {{numel}}},
              {"input_dtypes", {"Float"}}, {"output_sizes", {{numel}}},
              {"output_dtypes", {"Float"}}, {"state", "completed"},
              {"is_p2p", false},         {"duration_ms", 0.25}};
}

json dump_of(std::vector<json> entries) {
  json d{{"version", "2.4"},
         {"pg_config", {{"0", {{"name", "0"}, {"desc", "default_pg"}, {"ranks", "[0, 1]"}}},
                        {kHash, {{"name", kHash}, {"desc", "split"}, {"ranks", "[0, 1, 2, 3]"}}}}},
         {"pg_status", json::object()}};
  if (!entries.empty()) d["entries"] = entries;
  return d;
}

Workload import(const json& dump) {
  WorkloadBuilder b;
  import_flight_recorder(dump, 0, b, "flight.rank0.json");
  return b.finish("flight-recorder", {"flight.rank0.json"});
}

std::string refusal(const json& dump) {
  try {
    import(dump);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(FlightRecorder, HashedGroupNamesAreReadBesideNumberedOnes) {
  const Workload w = import(dump_of({entry("0"), entry(kHash)}));
  ASSERT_EQ(w.communicators.size(), 2u);
  EXPECT_EQ(w.communicators[0].id, "pg0");
  EXPECT_EQ(w.communicators[1].id, std::string("pg") + kHash);
  EXPECT_EQ(w.communicators[1].nranks, 4);
  EXPECT_EQ(workload_from_json(to_json(w)), w);  // the reader takes the hashed id too
}

TEST(FlightRecorder, ADumpWithNoEntriesIsEmptyNotRefused) {
  // PyTorch leaves "entries" out when nothing was recorded.
  const Workload w = import(dump_of({}));
  EXPECT_TRUE(w.communicators.empty());
  EXPECT_NE(refusal(json{{"entries", json::array()}}).find("flight.rank0.json"), std::string::npos);
}

TEST(FlightRecorder, ContentErrorsNameTheFileAndEntry) {
  json bad = dump_of({entry("0"), entry("0")});
  bad["entries"][1]["process_group"] = {"0\x1b[2J", "x"};
  const std::string why = refusal(bad);
  EXPECT_NE(why.find("flight.rank0.json"), std::string::npos) << why;
  EXPECT_NE(why.find("entries[1]"), std::string::npos) << why;
}

TEST(FlightRecorder, SizesAndDurationsAreChecked) {
  json wrap = dump_of({entry("0")});
  wrap["entries"][0]["input_sizes"] = {{4294967297ULL, 4294967297ULL}};  // numel wrapped on 8646a77
  EXPECT_NE(refusal(wrap).find("input_sizes"), std::string::npos);
  for (double ms : {1e308, -5e6}) {
    json d = dump_of({entry("0")});
    d["entries"][0]["duration_ms"] = ms;  // 1e308 us became inf, written as null; -5e6 was kept
    EXPECT_NE(refusal(d).find("duration_ms"), std::string::npos) << ms;
  }
}

// Bytes with NULs in them, from a literal.
template <std::size_t N>
std::string bytes(const char (&a)[N]) {
  return std::string(a, N - 1);
}

// A pickle built opcode by opcode.
struct Pickle {
  Pickle& put(int n) { b += 'q'; b.push_back(static_cast<char>(n)); return *this; }
  Pickle& get(int n) { b += 'h'; b.push_back(static_cast<char>(n)); return *this; }
  std::string b = "\x80\x02";
  Pickle& op(const char* o) { b += o; return *this; }
  Pickle& op(char o) { b.push_back(o); return *this; }
  Pickle& str(const std::string& s) {
    b += 'X';
    for (int k = 0; k < 4; ++k) b.push_back(static_cast<char>((s.size() >> (8 * k)) & 0xff));
    b += s;
    return *this;
  }
  Pickle& i64(std::int64_t v) {
    b += "\x8a\x08";
    for (int k = 0; k < 8; ++k) b.push_back(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * k)) & 0xff));
    return *this;
  }
  Pickle& f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    b += 'G';
    for (int k = 7; k >= 0; --k) b.push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
    return *this;
  }
};

// The dump as torch's jit Pickler writes it: generic dicts and lists, tuples for the group,
// strings memoized with BINPUT and reused with BINGET.
std::string jit_dump() {
  Pickle p;
  p.op('}').op('(');
  p.str("version").put(0).str("2.4");
  p.str("pg_config").op('}').op('(').str("0").put(1).op('}').op('(').str("name").get(1).str("desc").str("default_pg")
      .str("ranks").str("[0, 1]").op('u').op('u');
  p.str("entries").op(']').op('(');
  for (int k = 0; k < 2; ++k) {
    p.op('}').op('(').str("profiling_name").str("nccl:all_reduce").str("process_group").get(1).str("default_pg").op('\x86')
        .str("collective_seq_id").i64(k + 1).str("p2p_seq_id").i64(0).str("is_p2p").op('\x89')
        .str("input_sizes").op(']').op('(').op(']').op('(').i64(256).i64(4).op('e').op('e')
        .str("input_dtypes").op(']').str("Float").op('a').str("duration_ms").f64(0.5)
        .str("time_discovered_started").op('N').op('u');
  }
  p.op('e').op('u').op('.');
  return p.b;
}

TEST(FlightRecorderPickle, TheJitPicklersDumpReadsAsItsJson) {
  const std::string data = jit_dump();
  const json doc = decode_pickle(data, "nccl_trace_rank_0");
  EXPECT_EQ(doc["version"], "2.4");
  EXPECT_EQ(doc["entries"][1]["process_group"], json::array({"0", "default_pg"}));
  EXPECT_EQ(doc["entries"][0]["input_sizes"], json::parse("[[256, 4]]"));
  const Workload w = import(doc);
  ASSERT_EQ(w.communicators.size(), 1u);
  ASSERT_EQ(w.communicators[0].calls.size(), 1u);
  EXPECT_EQ(w.communicators[0].calls[0].shape.count, 1024u);
  EXPECT_EQ(w.communicators[0].calls[0].calls, 2u);
  EXPECT_DOUBLE_EQ(w.communicators[0].calls[0].durations.sum_us, 1000.0);
}

// Python's pickle module, protocol 4: FRAME, SHORT_BINUNICODE, MEMOIZE, BININT1.
TEST(FlightRecorderPickle, PythonsProtocolFourIsRead) {
  const std::string data = bytes("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x01" "a\x94K\x05\x8c\x01" "b\x94h\x01u.");
  EXPECT_EQ(decode_pickle(data, "p"), json::parse(R"({"a": 5, "b": "a"})"));
}

TEST(FlightRecorderPickle, ObjectsAreRefusedInOneLine) {
  // cos\nsystem\n(S'echo pwned'\ntR. : the classic payload.
  for (const std::string& evil : {bytes("\x80\x02" "cos\nsystem\nX\x04\x00\x00\x00" "echo\x85R."),
                                  bytes("\x80\x04\x8c\x02os\x8c\x06system\x93."), bytes("\x80\x02}X\x01\x00\x00\x00" "ab.")}) {
    try {
      decode_pickle(evil, "nccl_trace_rank_0");
      ADD_FAILURE() << "decoded";
    } catch (const UsageError& e) {
      const std::string why = e.what();
      EXPECT_NE(why.find("nccl_trace_rank_0"), std::string::npos) << why;
      EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    }
  }
}

TEST(FlightRecorderPickle, MemoryAndDepthAreBounded) {
  // A list holding itself, and 100 000 nested lists: refused by depth, no stack overflow.
  EXPECT_THROW(decode_pickle(bytes("\x80\x02]q\x00h\x00" "a."), "p"), UsageError);
  EXPECT_THROW(decode_pickle("\x80\x02" + std::string(100000, ']') + std::string(99999, 'a') + ".", "p"), UsageError);
  // Billion laughs: each list holds the last one ten times; the copies count against the bound.
  std::string laughs = "\x80\x02]q\x00";
  for (int k = 0; k < 12; ++k) {
    laughs += "](";
    for (int n = 0; n < 10; ++n) laughs += "h" + std::string(1, static_cast<char>(k));
    laughs += "eq" + std::string(1, static_cast<char>(k + 1)) + "0";  // stored, then popped
  }
  laughs += "0h" + std::string(1, static_cast<char>(12)) + ".";
  EXPECT_THROW(decode_pickle(laughs, "p", PickleLimits{100000, 64}), UsageError);
  EXPECT_THROW(decode_pickle(bytes("\x80\x02X\xff\xff\xff\x7f" "ab."), "p"), UsageError);  // length past the end
}

}  // namespace
}  // namespace cctune::workload
