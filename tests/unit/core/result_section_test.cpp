// The holder of a section another module owns (core/result_section.hpp).
#include "core/result_section.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace cctune {
namespace {

struct Owned {
  int n = 0;
};

TEST(ResultSection, ParsesOnceAndKeepsTheWrittenForm) {
  const ResultSection absent;
  EXPECT_FALSE(absent.present());
  const ResultSection s(nlohmann::json{{"n", 3}, {"extra", "kept"}});
  ASSERT_TRUE(s.present());
  int parses = 0;
  auto parse = [&](const nlohmann::json& j) {
    ++parses;
    return Owned{j.at("n").get<int>()};
  };
  EXPECT_EQ(s.get<Owned>(parse).n, 3);
  const ResultSection copy = s;
  EXPECT_EQ(&copy.get<Owned>(parse), &s.get<Owned>(parse));
  EXPECT_EQ(parses, 1);
  EXPECT_EQ(s.json().at("extra"), "kept");  // what is written back, fields no reader uses included
}

TEST(ResultSection, AFailedParseCachesNothing) {
  const ResultSection s(nlohmann::json{{"n", 1}});
  EXPECT_THROW(s.get<Owned>([](const nlohmann::json&) -> Owned { throw std::runtime_error("bad"); }), std::runtime_error);
  EXPECT_EQ(s.get<Owned>([](const nlohmann::json& j) { return Owned{j.at("n").get<int>()}; }).n, 1);
}

// meta.settings: the plan's owner and the owners of its parts each read it into their own type.
TEST(ResultSection, EachTypeIsParsedOnceBesideTheOthers) {
  struct Part {
    std::string name;
  };
  const ResultSection s(nlohmann::json{{"n", 2}, {"part", "p"}});
  int parses = 0;
  auto owned = [&](const nlohmann::json& j) {
    ++parses;
    return Owned{j.at("n").get<int>()};
  };
  auto part = [&](const nlohmann::json& j) {
    ++parses;
    return Part{j.at("part").get<std::string>()};
  };
  const Owned& first = s.get<Owned>(owned);
  EXPECT_EQ(s.get<Part>(part).name, "p");
  EXPECT_EQ(&s.get<Owned>(owned), &first);  // adding a type keeps the values already handed out
  EXPECT_EQ(s.get<Part>(part).name, "p");
  EXPECT_EQ(parses, 2);
}

}  // namespace
}  // namespace cctune
