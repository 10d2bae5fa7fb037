// What a job's log keeps of its output: everything up to twice the limit, else the first and
// the last `keep` bytes around one line saying how much was dropped (review 2026-11-28 R15).
#include "runtime/bounded_log.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cctune::runtime {
namespace {

class BoundedLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("cctune-blog-" + std::to_string(::getpid()))).string();
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    ::close(fd_);
    std::filesystem::remove(path_);
  }
  std::string written() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string path_;
  int fd_ = -1;
};

// `text` written in chunks of `chunk` bytes, finished.
void feed(BoundedLog& log, const std::string& text, std::size_t chunk) {
  for (std::size_t i = 0; i < text.size(); i += chunk) log.write(text.data() + i, std::min(chunk, text.size() - i));
  log.finish();
}

TEST_F(BoundedLogTest, KeepsEverythingUpToTwiceTheLimit) {
  for (const std::size_t chunk : {1, 3, 20}) {
    ASSERT_EQ(::ftruncate(fd_, 0), 0);
    ASSERT_EQ(::lseek(fd_, 0, SEEK_SET), 0);
    BoundedLog log(fd_, 10);
    feed(log, "0123456789abcdefghij", chunk);
    EXPECT_EQ(written(), "0123456789abcdefghij") << chunk;
    EXPECT_EQ(log.total_bytes(), 20u);
    EXPECT_EQ(log.dropped_bytes(), 0u);
  }
}

TEST_F(BoundedLogTest, DropsTheMiddleAndSaysHowMuch) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += std::to_string(i % 10);
  for (const std::size_t chunk : {1, 7, 10, 64, 1000}) {
    ASSERT_EQ(::ftruncate(fd_, 0), 0);
    ASSERT_EQ(::lseek(fd_, 0, SEEK_SET), 0);
    BoundedLog log(fd_, 10);
    feed(log, text, chunk);
    EXPECT_EQ(written(), text.substr(0, 10) +
                             "\n[cctune: 980 bytes of the job's output dropped here; the log keeps the first 10 and the last 10 bytes]\n" +
                             text.substr(990))
        << chunk;
    EXPECT_EQ(log.total_bytes(), 1000u);
    EXPECT_EQ(log.dropped_bytes(), 980u);
  }
}

TEST_F(BoundedLogTest, ALogThatRefusesWritesCountsThemAsDropped) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // writes fail with EPIPE (SIGPIPE ignored here)
  ::signal(SIGPIPE, SIG_IGN);
  BoundedLog log(fds[1], 4);
  feed(log, "abcdefghij", 3);
  ::close(fds[1]);
  EXPECT_EQ(log.total_bytes(), 10u);
  EXPECT_EQ(log.dropped_bytes(), 10u);
}

}  // namespace
}  // namespace cctune::runtime
