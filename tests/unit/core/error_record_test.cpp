// The one error encoding: every kind, message, fix and site survives the trip through JSON,
// and text from another process that is not a record reads as none, never as an exception.
#include "core/error_record.hpp"

#include <gtest/gtest.h>

namespace cctune {
namespace {

TEST(ErrorRecord, EveryKindAndSiteSurvivesTheTrip) {
  for (const ErrorKind kind : {ErrorKind::Usage, ErrorKind::Environment, ErrorKind::Failure}) {
    const ErrorRecord sent{kind, "no GPU \xff on this node", "check nvidia-smi", ErrorSite{"n1", 3, 2}};
    const auto got = error_record_from_json(nlohmann::json::parse(to_json(sent).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    ASSERT_TRUE(got);
    EXPECT_EQ(got->kind, kind);
    EXPECT_EQ(got->fix, "check nvidia-smi");
    ASSERT_TRUE(got->site);
    EXPECT_EQ(got->site->host, "n1");
    EXPECT_EQ(got->site->rank, 3);
    EXPECT_EQ(got->site->device, 2);
  }
}

TEST(ErrorRecord, RethrowRaisesTheSameKindAgreedAtItsSite) {
  const ErrorRecord usage{ErrorKind::Usage, "--sizes 0", "use a size above 0", ErrorSite{"n0", 1, -1}};
  try {
    rethrow(usage);
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "--sizes 0");
    EXPECT_EQ(e.fix(), "use a size above 0");
    ASSERT_TRUE(e.agreed());
    EXPECT_EQ(e.site()->rank, 1);
  }
  EXPECT_THROW(rethrow({ErrorKind::Environment, "m", "", {}}), EnvironmentError);
  EXPECT_THROW(rethrow({ErrorKind::Failure, "m", "", {}}), RuntimeFailure);
}

TEST(ErrorRecord, RecordOfKeepsACctuneErrorsKindAndAnyOtherIsAFailure) {
  const ErrorRecord env = record_of(EnvironmentError("no libnccl", "install NCCL"));
  EXPECT_EQ(env.kind, ErrorKind::Environment);
  EXPECT_EQ(env.message, "no libnccl");
  EXPECT_EQ(env.fix, "install NCCL");
  EXPECT_FALSE(env.site);
  const ErrorRecord other = record_of(std::out_of_range("substr"));
  EXPECT_EQ(other.kind, ErrorKind::Failure);
  EXPECT_EQ(other.message, "substr");
}

TEST(ErrorRecord, WhatIsNoRecordReadsAsNone) {
  for (const char* text : {R"(null)", R"("text")", R"({})", R"({"message": 5})", R"({"error": "x", "fix": ""})"})
    EXPECT_FALSE(error_record_from_json(nlohmann::json::parse(text))) << text;
  // An unknown kind is a failure; a rank beyond int or a missing host is no site.
  const auto odd = error_record_from_json(nlohmann::json::parse(R"({"message": "m", "kind": "cosmic", "host": "h", "rank": 4294967298})"));
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->kind, ErrorKind::Failure);
  EXPECT_FALSE(odd->site);
  EXPECT_FALSE(error_record_from_json(nlohmann::json::parse(R"({"message": "m", "rank": 1})"))->site);
}

}  // namespace
}  // namespace cctune
