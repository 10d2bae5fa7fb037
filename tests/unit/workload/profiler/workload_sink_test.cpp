// The profiler half's file and its finished communicators, without NCCL: WorkloadSink,
// WorkloadFile and FinishedComms linked from their sources (the reliability review of
// 2026-11-27, N2 and N13).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "workload/profiler/comm_recorder.hpp"
#include "workload/profiler/finished_comms.hpp"
#include "workload/profiler/shape_table.hpp"
#include "workload/profiler/workload_file.hpp"
#include "workload/profiler/workload_sink.hpp"
#include "workload/workload_json.hpp"

namespace cctune::tuner {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  const std::string dir = std::string(CCTUNE_BINARY_DIR) + "/tests/workload_sink_test/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

workload::Workload read_workload(const std::string& path) { return workload::workload_from_json(nlohmann::json::parse(read_file(path))); }

void count(CommRecorder& r, std::size_t n_calls, std::uint64_t count) {
  ShapeKey key{workload::CallKind::Collective, Collective::AllReduce, DType::Float32, -1, count};
  ShapeStats* stats = nullptr;
  for (std::size_t i = 0; i < n_calls; ++i) {
    if (i == 0) r.count_call(key, stats);
    else stats->count_one();
  }
}

// Two processes with the same host name and pid (containers with host networking, each job
// pid 1 in its own PID namespace) are two sinks of one host and pid here: each must keep a
// file of its own. They shared workload.<host>.<pid>.json, and the last write won.
TEST(WorkloadSink, SameHostAndPidGiveTwoFiles) {
  const std::string dir = fresh_dir("same-pid");
  WorkloadSettings s = read_workload_settings(dir.c_str(), "0", nullptr);
  ASSERT_TRUE(s.problem.empty()) << s.problem;
  int mask_a = 0, mask_b = 0;
  WorkloadSink a(s), b(s);
  auto* ra = new CommRecorder(0xaaa, 2, 1, 0, &mask_a);
  auto* rb = new CommRecorder(0xbbb, 2, 1, 0, &mask_b);
  a.add(ra);
  b.add(rb);
  count(*ra, 1000, 256);
  count(*rb, 3000, 256);
  a.write();
  b.write();
  a.write();  // later writes replace each process's own file only
  const std::vector<std::string> files = files_in(dir);
  ASSERT_EQ(files.size(), 2u);
  std::vector<std::string> ids;
  for (const std::string& f : files) {
    const workload::Workload w = read_workload(f);
    ASSERT_EQ(w.communicators.size(), 1u);
    EXPECT_EQ(w.sources, std::vector<std::string>{"nccl-profiler:" + w.sources.at(0).substr(14)});  // nccl-profiler:<host>:<pid>
    EXPECT_NE(w.sources.at(0).find(":" + std::to_string(getpid())), std::string::npos);
    ids.push_back(w.communicators[0].id);
    EXPECT_EQ(w.communicators[0].calls.at(0).calls, w.communicators[0].id == "0xaaa" ? 1000u : 3000u);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"0xaaa", "0xbbb"}));
  a.remove(ra);
  b.remove(rb);
  delete ra;
  delete rb;
}

std::string tag_a() { return "aaaaaaaaaaaa"; }
int tags_drawn = 0;
std::string tag_a_then_b() { return tags_drawn++ == 0 ? "aaaaaaaaaaaa" : "bbbbbbbbbbbb"; }

// The first write creates the file exclusively: a name another process holds (the same tag
// drawn, or a file planted there) is never replaced; another tag is drawn.
TEST(WorkloadFile, ANameAnotherProcessHoldsIsNeverReplaced) {
  const std::string dir = fresh_dir("taken");
  const std::string taken = dir + "/workload.h.1.aaaaaaaaaaaa.json";
  std::ofstream(taken) << "another process's";
  tags_drawn = 0;
  WorkloadFile file(dir, "h", 1, &tag_a_then_b);
  EXPECT_EQ(file.path(), taken);
  file.write("mine 1");
  file.write("mine 2");
  EXPECT_EQ(file.path(), dir + "/workload.h.1.bbbbbbbbbbbb.json");
  EXPECT_EQ(read_file(taken), "another process's");
  EXPECT_EQ(read_file(file.path()), "mine 2");
  // Every draw taken: an error naming the folder, nothing replaced.
  WorkloadFile stuck(dir, "h", 1, &tag_a);
  EXPECT_THROW(stuck.write("x"), EnvironmentError);
  EXPECT_EQ(read_file(taken), "another process's");
}

TEST(WorkloadFile, TagsAreTwelveHexDigitsAndDiffer) {
  const std::string a = random_file_tag(), b = random_file_tag();
  EXPECT_EQ(a.size(), 12u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

workload::Communicator lifetime(const std::string& id, int rank, std::uint64_t calls, std::uint64_t first_count, std::size_t shapes) {
  workload::Communicator c;
  c.id = id;
  c.nranks = 4;
  c.nnodes = 1;
  c.ranks = {rank};
  for (std::size_t i = 0; i < shapes; ++i) {
    workload::CallStats s;
    s.shape.count = first_count + i;
    s.shape.bytes = 4 * (first_count + i);
    s.calls = calls;
    s.applied = {{Algorithm::Ring, Protocol::LL, 2, 1}};
    s.durations.add(10.0);
    c.calls.push_back(s);
  }
  c.groups = {{{c.calls.at(0).shape, c.calls.at(0).shape}, 1}};
  return c;
}

// Lifetimes of one communicator on one rank add up into one record; another rank's or
// another shape of communicator (nranks) stays apart.
TEST(FinishedComms, LifetimesOfOneCommunicatorAreOneRecord) {
  FinishedComms f;
  EXPECT_TRUE(f.add(lifetime("0x1", 0, 10, 100, 3)));
  EXPECT_TRUE(f.add(lifetime("0x1", 0, 5, 101, 3)));  // shapes 101, 102 shared; 103 new
  EXPECT_TRUE(f.add(lifetime("0x1", 1, 7, 100, 1)));
  workload::Communicator other_shape = lifetime("0x1", 0, 1, 100, 1);
  other_shape.nranks = 8;
  EXPECT_TRUE(f.add(other_shape));
  EXPECT_EQ(f.records(), 3u);
  const std::vector<workload::Communicator> all = f.with({lifetime("0x1", 0, 1, 100, 1)});  // a live one coalesces too
  ASSERT_EQ(all.size(), 3u);
  const workload::Communicator& r0 = all[0].nranks == 4 && all[0].ranks == std::vector<int>{0} ? all[0] : all[1];
  ASSERT_EQ(r0.calls.size(), 4u);
  EXPECT_EQ(r0.calls[0].calls, 11u);  // 100: 10 + the live 1
  EXPECT_EQ(r0.calls[1].calls, 15u);  // 101
  EXPECT_EQ(r0.calls[3].calls, 5u);   // 103
  EXPECT_EQ(r0.calls[1].applied.at(0).calls, 2u);
  EXPECT_EQ(r0.calls[1].durations.samples, 2u);
  EXPECT_EQ(r0.groups.size(), 2u);  // (100,100) three times, (101,101) once
}

// Past the entries' bound new shapes are counted, not kept; past the records' bound the
// record with the fewest calls goes (or the newcomer, when it has fewer), counted.
TEST(FinishedComms, StaysWithinItsBounds) {
  FinishedComms f(/*max_entries=*/10, /*max_records=*/3);
  EXPECT_TRUE(f.add(lifetime("0xa", 0, 2, 1, 4)));  // 8 calls; 4 shapes + a group of 2: 6 entries
  EXPECT_TRUE(f.add(lifetime("0xb", 0, 3, 1, 4)));  // room for 4 shapes; its group finds none
  EXPECT_EQ(f.entries(), 10u);
  EXPECT_TRUE(f.add(lifetime("0xc", 0, 5, 1, 2)));  // no room: its identity and counts only
  EXPECT_FALSE(f.add(lifetime("0xd", 0, 1, 1, 1)));  // 1 call: fewer than any record's
  EXPECT_EQ(f.records(), 3u);
  EXPECT_EQ(f.dropped_communicators(), 1u);
  EXPECT_EQ(f.dropped_calls(), 1u);
  std::vector<workload::Communicator> all = f.with({});
  EXPECT_EQ(all[1].calls.size(), 4u);
  EXPECT_EQ(all[1].groups_not_recorded, 1u);
  EXPECT_TRUE(all[2].calls.empty());
  EXPECT_EQ(all[2].calls_not_recorded, 10u);
  EXPECT_EQ(all[2].groups_not_recorded, 1u);
  EXPECT_FALSE(f.add(lifetime("0xe", 0, 100, 1, 1)));  // 100 calls: 0xa (8) makes room
  EXPECT_EQ(f.records(), 3u);
  EXPECT_EQ(f.dropped_communicators(), 2u);
  EXPECT_EQ(f.dropped_calls(), 9u);
  EXPECT_EQ(f.entries(), 10u - 6u + 3u);
  all = f.with({});
  EXPECT_EQ(all[0].id, "0xb");
  EXPECT_EQ(all[2].id, "0xe");
  EXPECT_EQ(all[2].calls.at(0).calls, 100u);
}

// A call whose bytes no real call can have (count x ranks x type size past the bound) is counted
// as not recorded, never written as 0 bytes: the reader refuses such a file (review N10).
TEST(ShapeTable, CallsBeyondAnyRealSizeAreNotRecordedButCounted) {
  ShapeTable table;
  const ShapeKey huge{workload::CallKind::Collective, Collective::AllGather, DType::Float32, -1, std::uint64_t{1} << 62};
  const ShapeKey fine{workload::CallKind::Collective, Collective::AllReduce, DType::Float32, -1, 1024};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(table.count(huge));  // count() records one call each
  ASSERT_TRUE(table.count(fine));
  const workload::Communicator c = to_communicator(table, 0x1f, 4, 1, 0);
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].shape.collective, Collective::AllReduce);
  EXPECT_EQ(c.calls_not_recorded, 3u);
  workload::Workload w;
  w.communicators.push_back(c);
  EXPECT_NO_THROW(workload::workload_from_json(workload::to_json(w)));
}

}  // namespace
}  // namespace cctune::tuner

namespace cctune::tuner {
namespace {

// Two shapes a step, 10 steps, each step about 1 ms apart. Ten steps are too few to look for a
// pattern in their durations, which a busy host's scheduler makes: a process that runs a few
// 1 ms steps each time slice and then waits for the next one has steps of a few (CI saw 4).
workload::Communicator stepped(bool timed) {
  int mask = 0;
  CommRecorder r(0xccc, 2, 1, 0, &mask);
  r.time_steps(timed);
  const ShapeKey a{workload::CallKind::Collective, Collective::AllReduce, DType::Float32, -1, 1024};
  const ShapeKey b{workload::CallKind::Collective, Collective::AllGather, DType::Float32, -1, 4096};
  ShapeStats* stats = nullptr;
  for (int step = 0; step < 10; ++step) {
    r.count_call(a, stats);
    r.count_call(b, stats);
    const std::uint64_t until = host_now_ns() + 1000000;
    while (host_now_ns() < until) {
    }
  }
  return r.snapshot();
}

TEST(StepTimeline, TimedStepsGiveTheStepAndItsTime) {
  const workload::Communicator c = stepped(true);
  ASSERT_TRUE(c.cadence);
  EXPECT_EQ(c.cadence->calls_per_step, 2u);
  EXPECT_DOUBLE_EQ(c.cadence->steps, 10.0);
  EXPECT_EQ(c.cadence->timed_steps, 9u);
  EXPECT_GE(c.cadence->step_ms, 1.0);
}

TEST(StepTimeline, UntimedStepsGiveTheStepWithoutATime) {
  const workload::Communicator c = stepped(false);
  ASSERT_TRUE(c.cadence);
  EXPECT_EQ(c.cadence->calls_per_step, 2u);
  EXPECT_EQ(c.cadence->step_ms, 0.0);
}

// The stand-in's step through a recorder: two equal all-reduces and a larger one, `steps`
// times, 1 ms a step, then `after` more calls (shapes no step has).
void three_call_steps(CommRecorder& r, int steps, const std::vector<ShapeKey>& after) {
  const ShapeKey small{workload::CallKind::Collective, Collective::AllReduce, DType::Float32, -1, 1 << 20};
  const ShapeKey large{workload::CallKind::Collective, Collective::AllReduce, DType::Float32, -1, 1 << 22};
  ShapeStats* stats = nullptr;
  for (int step = 0; step < steps; ++step) {
    for (const ShapeKey& k : {small, small, large}) r.count_call(k, stats);
    const std::uint64_t until = host_now_ns() + 1000000;
    while (host_now_ns() < until) {}
  }
  for (const ShapeKey& k : after) r.count_call(k, stats);
}

const ShapeKey barrier{workload::CallKind::Collective, Collective::AllReduce, DType::Float32, -1, 1};

// R6 of the 2026-11-28 review: a final dist.barrier() (a one-element all-reduce) hid every step.
TEST(StepTimeline, ABarrierAfterTheLastStepLeavesTheSteps) {
  int mask = 0;
  CommRecorder r(0xddd, 2, 1, 0, &mask);
  r.time_steps(true);
  three_call_steps(r, 12, {barrier});
  const workload::Communicator c = r.snapshot();
  ASSERT_TRUE(c.cadence);
  EXPECT_EQ(c.cadence->calls_per_step, 3u);
  EXPECT_DOUBLE_EQ(c.cadence->steps, 12.0);
  EXPECT_GE(c.cadence->step_ms, 1.0);
  EXPECT_FALSE(c.no_step);
}

// Where the calls show no step, the file says why, naming the shapes as the job issued them.
TEST(StepTimeline, NoStepIsWrittenWithItsReason) {
  const std::string dir = fresh_dir("no-step");
  WorkloadSettings settings = read_workload_settings(dir.c_str(), "0", nullptr);
  ASSERT_TRUE(settings.problem.empty()) << settings.problem;
  int mask = 0;
  WorkloadSink sink(settings);
  auto* r = new CommRecorder(0xeee, 2, 1, 0, &mask);
  sink.add(r);
  three_call_steps(*r, 2, {barrier});
  sink.write();
  const workload::Communicator c = read_workload(files_in(dir).at(0)).communicators.at(0);
  EXPECT_FALSE(c.cadence);
  ASSERT_TRUE(c.no_step);
  EXPECT_NE(c.no_step->reason.find("only twice (calls 1 to 6 of 7); then call 7 is allreduce float32 count 1 where the step has allreduce "
                                   "float32 count 1048576"),
            std::string::npos)
      << c.no_step->reason;
  EXPECT_NE(c.no_step->fix.find("run the job for more steps"), std::string::npos) << c.no_step->fix;
  sink.remove(r);
  delete r;
}

TEST(StepTimeline, StepTimesAreOnlyOnWhenAsked) {
  const std::string dir = fresh_dir("step-times");
  EXPECT_FALSE(read_workload_settings(dir.c_str(), "0", nullptr).step_times);
  EXPECT_TRUE(read_workload_settings(dir.c_str(), "0", nullptr, nullptr, nullptr, nullptr, "1").step_times);
  const WorkloadSettings bad = read_workload_settings(dir.c_str(), "0", nullptr, nullptr, nullptr, "many", "yes");
  EXPECT_FALSE(bad.step_times);
  EXPECT_FALSE(bad.job_steps);
  EXPECT_NE(bad.note.find("CCTUNE_WORKLOAD_STEPS=many"), std::string::npos) << bad.note;
}

}  // namespace
}  // namespace cctune::tuner
