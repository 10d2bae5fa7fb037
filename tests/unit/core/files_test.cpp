// Issue 15 items 11-13: files cctune writes are created exclusively and fsynced; files it
// reads are regular files of bounded size.
#include "core/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "support/temp_dir.hpp"

namespace cctune {
namespace {

namespace fs = std::filesystem;

using testing::slurp;
using testing::TempDir;

// The old temp name was `path.tmp.<pid>`: a symlink planted there replaced its target.
TEST(WriteFileAtomically, NeverFollowsAPlantedSymlink) {
  TempDir d;
  const fs::path victim = d.path / "victim";
  std::ofstream(victim) << "precious";
  const fs::path target = d.path / "results.json";
  fs::create_symlink(victim, target.string() + ".tmp." + std::to_string(::getpid()));
  write_file_atomically(target.string(), "new");
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_EQ(slurp(target), "new");
  EXPECT_TRUE(fs::is_symlink(target.string() + ".tmp." + std::to_string(::getpid())));  // left alone
  for (const auto& e : fs::directory_iterator(d.path))  // no temporary left behind
    EXPECT_EQ(e.path().filename().string().find(".results.json.tmp"), std::string::npos) << e.path();
}

TEST(WriteFileAtomically, FileIsReadableAndFailureLeavesTheOldOne) {
  TempDir d;
  const fs::path target = d.path / "out.json";
  write_file_atomically(target.string(), "one");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & S_IRUSR, 0u);
  fs::create_directory(d.path / "dir.json");  // rename onto a directory fails
  EXPECT_THROW(write_file_atomically((d.path / "dir.json").string(), "two"), EnvironmentError);
  EXPECT_EQ(slurp(target), "one");
}

// Issue 15 item 13: `report FIFO` blocked, `report /dev/zero` read until memory ran out.
TEST(ReadFile, RefusesFifosAndDevicesAtOnce) {
  TempDir d;
  const fs::path fifo = d.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(read_file(fifo.string()), UsageError);
  EXPECT_THROW(read_file("/dev/zero"), UsageError);
  EXPECT_THROW(read_file(d.path.string()), UsageError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(ReadFile, RefusesFilesOverTheLimit) {
  TempDir d;
  const fs::path big = d.path / "big";
  std::ofstream(big) << std::string(2000, 'x');
  EXPECT_THROW(read_file(big.string(), 1000), UsageError);
  EXPECT_EQ(read_file(big.string(), 2000).size(), 2000u);
}

// `cctune sweep --csv FILE`: the file is new or refused; what was appended is there at once.
TEST(NewFile, CreatesExclusivelyAndAppends) {
  TempDir d;
  const fs::path f = d.path / "points.csv";
  {
    NewFile file(f.string(), "pick another name");
    file.append("a,b\n");
    file.append("1,2\n");
    file.sync();
    EXPECT_EQ(slurp(f), "a,b\n1,2\n");  // before the file is closed
  }
  try {
    NewFile again(f.string(), "pick another name");
    FAIL() << "an existing file was opened";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), f.string() + " already exists");
    EXPECT_EQ(e.fix(), "pick another name");
  }
  EXPECT_EQ(slurp(f), "a,b\n1,2\n");  // untouched
}

TEST(NewFile, RefusesAPlantedSymlinkAndAMissingDirectory) {
  TempDir d;
  const fs::path victim = d.path / "victim";
  std::ofstream(victim) << "keep";
  fs::create_symlink(victim, d.path / "link.csv");
  EXPECT_THROW(NewFile((d.path / "link.csv").string(), "fix"), UsageError);
  EXPECT_EQ(slurp(victim), "keep");
  EXPECT_THROW(NewFile((d.path / "no" / "such.csv").string(), "fix"), EnvironmentError);
}

}  // namespace
}  // namespace cctune
