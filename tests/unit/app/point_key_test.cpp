// PointKey's one JSON form (app/run/resume.hpp): the keys rank 0 hands the other ranks on
// --resume, read back exactly, and a malformed key is one line naming the field.
#include <gtest/gtest.h>

#include "app/run/resume.hpp"
#include "core/error.hpp"
#include "support/thrown.hpp"

namespace cctune::app {
namespace {

using nlohmann::json;

PointKey sample_key() {
  PointKey k;
  k.backend = "nccl";
  k.group = "ring-ll";
  k.collective = Collective::AllToAll;
  k.dtype = DType::BFloat16;
  k.op = ReduceOp::Max;
  k.in_place = true;
  k.root = 3;
  k.size_bytes = 1ull << 33;
  k.config.algo = Algorithm::Ring;
  k.config.proto = Protocol::LL;
  k.config.channels = 16;
  k.config.graph = true;
  k.impl = P2pImpl::Grouped;
  return k;
}

bool same(const PointKey& a, const PointKey& b) { return !(a < b) && !(b < a); }

std::string error_of(const json& j) {
  return testing::thrown_message<UsageError>([&] { j.get<PointKey>(); });
}

TEST(PointKeyJson, EveryFieldReadsBack) {
  const PointKey k = sample_key();
  EXPECT_TRUE(same(json::parse(json(k).dump()).get<PointKey>(), k));
  PointKey plain;  // NCCL's choices, no implementation
  plain.backend = "mpi";
  plain.group = "default";
  const json j = plain;
  EXPECT_FALSE(j.contains("impl"));
  EXPECT_EQ(j.at("algo"), "auto");
  EXPECT_TRUE(same(json::parse(j.dump()).get<PointKey>(), plain));
  EXPECT_FALSE(json::parse(j.dump()).get<PointKey>().impl.has_value());
}

// The sample key with one field replaced, or left out.
json with(const char* key, const json& value) {
  json j = sample_key();
  j[key] = value;
  return j;
}

TEST(PointKeyJson, AMalformedKeyIsOneLineNamingTheField) {
  EXPECT_EQ(error_of(with("root", "three")), "resume key.root: expected an integer, got a string");
  EXPECT_EQ(error_of(with("algo", "spiral")), "resume key.algo \"spiral\" is not an algorithm");
  EXPECT_EQ(error_of(with("impl", "other")), "resume key.impl \"other\" is not an implementation");
  json missing = sample_key();
  missing.erase("size_bytes");
  EXPECT_EQ(error_of(missing), "resume key.size_bytes is missing");
}

}  // namespace
}  // namespace cctune::app
