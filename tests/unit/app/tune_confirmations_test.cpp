// Where tune takes a confirmation round's readings from (app/tune/tune_options.hpp): a sweep
// hands its own round's in memory; `cctune tune` reads <dir>/confirm/confirmation.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "app/tune/tune_options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path dir = fs::temp_directory_path() / ("cctune-tune-confirm-" + std::to_string(::getpid()));
  Folder() { fs::create_directories(dir / "confirm"); }
  ~Folder() { fs::remove_all(dir); }
  std::string results() const { return (dir / "results.json").string(); }
};

TEST(TuneConfirmations, ASweepsOwnRoundIsTakenInMemoryNotFromTheFile) {
  Folder f;
  write_file_atomically((f.dir / "confirm" / "confirmation.json").string(), "not a confirmation");
  tuner::RuleConfirmation c;
  c.shape = {Collective::AllGather, 8, 1};
  c.size_bytes = 4096;
  c.speedup = 1.2;
  c.ci_low = 1.1;
  c.ci_high = 1.3;
  c.faster = true;
  TuneChoices handed;
  handed.confirmations = std::vector<tuner::RuleConfirmation>{c};
  const tuner::TuneOptions options = tune_options_for(Results{}, f.results(), handed);
  ASSERT_EQ(options.confirmations.size(), 1u);
  EXPECT_EQ(options.confirmations[0].shape, c.shape);
  EXPECT_EQ(options.confirmations[0].size_bytes, 4096u);
  EXPECT_TRUE(options.confirmations[0].faster);
  handed.confirmations = std::vector<tuner::RuleConfirmation>{};  // the sweep ran no round
  EXPECT_TRUE(tune_options_for(Results{}, f.results(), handed).confirmations.empty());
  // `cctune tune` (no round handed over) reads the record, and says when it is malformed.
  EXPECT_THROW(tune_options_for(Results{}, f.results(), TuneChoices{}), UsageError);
}

}  // namespace
}  // namespace cctune::app
