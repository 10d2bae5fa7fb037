// The profiler half of libnccl-tuner-cctune.so as NCCL loads it (dlopen, dlsym of
// ncclProfiler_v5/_v4), driven with synthetic events in NCCL's layout. The plugin reads
// CCTUNE_WORKLOAD once per process, so each scenario runs in a child process of its own.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>

#include "profiler_so_support.hpp"

namespace cctune::tuner {
namespace {

using namespace scenario;
using namespace so_support;
namespace fs = std::filesystem;

TEST(ProfilerSo, ExportsBothVersionsNextToTheTuner) {
  void* handle = dlopen(CCTUNE_TUNER_PLUGIN_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto* v5 = static_cast<const nccl_abi::ProfilerV5*>(dlsym(handle, "ncclProfiler_v5"));
  const auto* v4 = static_cast<const nccl_abi::ProfilerV4*>(dlsym(handle, "ncclProfiler_v4"));
  ASSERT_TRUE(v5 && v4);
  EXPECT_STREQ(v5->name, "cctune");
  EXPECT_STREQ(v4->name, "cctune");
  EXPECT_NE(dlsym(handle, "ncclTunerPlugin_v5"), nullptr);
}

TEST(ProfilerSo, RecordsCallsAppliedChoiceAndGpuTime) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("records");
    use_workload(dir);
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "1", 1);  // every call followed
    auto d = driver();
    SCENARIO_CHECK(d.init(0xabc, 2, 4, 1, testing::capture_logger) && d.context);
    SCENARIO_CHECK(d.mask == (api_events | task_events | nccl_abi::kProfileKernelCh));
    for (int i = 0; i < 10; ++i) d.timed_collective("AllReduce", 1024, "ncclFloat32", 1000000000ull + i * 1000000ull, 50000);
    for (int i = 0; i < 4; ++i) SCENARIO_CHECK(d.collective("AllGather", 256, "ncclBfloat16", "NVLSTree", "LL128", 16));
    for (int i = 0; i < 3; ++i) SCENARIO_CHECK(d.p2p("Send", 4096, "ncclInt8", 2));
    SCENARIO_CHECK(!d.collective("NoSuchCall", 1, "ncclFloat32", "Ring", "LL", 1));  // ignored, no handle
    SCENARIO_CHECK(d.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.format == "nccl-profiler" && w.communicators.size() == 1);
    const workload::Communicator& c = w.communicators[0];
    SCENARIO_CHECK(c.id == "0xabc" && c.nranks == 4 && c.nnodes == 2 && c.ranks == std::vector<int>{1});
    SCENARIO_CHECK(c.calls.size() == 3 && c.calls_not_recorded == 0);
    bool saw_allreduce = false, saw_allgather = false, saw_send = false;
    for (const workload::CallStats& s : c.calls) {
      if (s.shape.kind == workload::CallKind::Collective && s.shape.collective == Collective::AllReduce) {
        saw_allreduce = true;
        SCENARIO_CHECK(s.calls == 10 && s.shape.bytes == 4096 && s.shape.dtype == DType::Float32);
        SCENARIO_CHECK(s.applied.size() == 1 && s.applied[0].algo == Algorithm::Ring &&
                       s.applied[0].proto == Protocol::Simple && s.applied[0].channels == 2 && s.applied[0].calls == 10);
        SCENARIO_CHECK(s.durations.samples == 10 && s.durations.clock == "gpu");
        SCENARIO_CHECK(s.durations.min_us == 50.0 && s.durations.max_us == 50.0 && s.durations.sum_us == 500.0);
        SCENARIO_CHECK(s.durations.histogram.size() == 1 && s.durations.histogram.begin()->second == 10);
      } else if (s.shape.kind == workload::CallKind::Collective) {
        saw_allgather = true;
        SCENARIO_CHECK(s.shape.collective == Collective::AllGather && s.calls == 4 && s.shape.bytes == 256u * 4 * 2);
        SCENARIO_CHECK(s.applied.size() == 1 && s.applied[0].algo == Algorithm::NvlsTree && s.applied[0].proto == Protocol::LL128);
        SCENARIO_CHECK(s.durations.samples == 0);  // no kernel channel events: no time
      } else {
        saw_send = true;
        SCENARIO_CHECK(s.shape.kind == workload::CallKind::Send && s.calls == 3 && s.shape.bytes == 4096);
      }
    }
    SCENARIO_CHECK(saw_allreduce && saw_allgather && saw_send);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

// By default one call in 100 is followed, on average: every call is counted (from its API
// event), the followed ones also give what NCCL applied and their GPU time.
TEST(ProfilerSo, CountsEveryCallAndFollowsASample) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("followed");
    use_workload(dir);
    setenv("CCTUNE_WORKLOAD_FOLLOW_GAP_MS", "0", 1);  // no rate bound: this loop is fast
    auto d = driver();
    SCENARIO_CHECK(d.init(0xf0, 1, 2, 0, testing::capture_logger) && d.context);
    SCENARIO_CHECK(d.mask == api_events);
    int followed = 0;
    for (int i = 0; i < 250; ++i) followed += d.timed_collective("AllReduce", 1024, "ncclFloat32", 1000000000ull * (i + 1), 40000);
    SCENARIO_CHECK(followed >= 1 && followed <= 10);  // gaps of 1 to 199 calls
    SCENARIO_CHECK(d.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    const workload::CallStats& s = w.communicators.at(0).calls.at(0);
    SCENARIO_CHECK(s.calls == 250 && s.applied.size() == 1);
    SCENARIO_CHECK(s.applied[0].calls == static_cast<std::uint64_t>(followed) && s.durations.samples == static_cast<std::uint64_t>(followed));
    SCENARIO_CHECK(s.durations.min_us == 40.0 && s.durations.max_us == 40.0);
  });
}

// Review N15: the call memo finds a call by NCCL's name pointers; a caller that writes other
// names into the same buffers is counted by what the names read (it was: 10 Broadcasts counted
// as AllReduce).
TEST(ProfilerSo, ANameBufferRewrittenWithAnotherNameIsCountedAsItReads) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("mutname");
    use_workload(dir);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xab, 1, 2, 0, testing::capture_logger) && d.context);
    char func[16] = "AllReduce", dtype[16] = "ncclFloat32";
    const auto ten_calls = [&] {
      for (int i = 0; i < 10; ++i) {
        void* g = d.group_start(1);
        d.coll_api(g, func, 1024, dtype);
        d.group_stop(g);
      }
    };
    ten_calls();
    std::strcpy(func, "Broadcast");
    ten_calls();
    std::strcpy(dtype, "ncclInt8");
    ten_calls();
    SCENARIO_CHECK(d.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators.size() == 1);
    const auto calls_of = [&](Collective c, DType t) {
      for (const workload::CallStats& s : w.communicators[0].calls)
        if (s.shape.collective == c && s.shape.dtype == t) return s.calls;
      return std::uint64_t{0};
    };
    SCENARIO_CHECK(w.communicators[0].calls.size() == 3);
    SCENARIO_CHECK(calls_of(Collective::AllReduce, DType::Float32) == 10);
    SCENARIO_CHECK(calls_of(Collective::Broadcast, DType::Float32) == 10);
    SCENARIO_CHECK(calls_of(Collective::Broadcast, DType::Int8) == 10);
  });
}

// A step that repeats the same 100 calls: a fixed gap of 100 would follow the same call every
// time; random gaps spread the samples over the step's shapes.
TEST(ProfilerSo, FollowedCallsSpreadOverARepeatingStep) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("spread");
    use_workload(dir);
    setenv("CCTUNE_WORKLOAD_FOLLOW_GAP_MS", "0", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xf1, 1, 2, 0, testing::capture_logger) && d.context);
    int followed = 0;
    for (int step = 0; step < 200; ++step)
      for (std::size_t call = 1; call <= 100; ++call) followed += d.collective("AllReduce", call, "ncclFloat32", "Ring", "LL", 1);
    SCENARIO_CHECK(followed >= 150 && followed <= 250);  // 20,000 calls, one in 100 on average
    SCENARIO_CHECK(d.finalize());
    std::size_t shapes_followed = 0;
    for (const workload::CallStats& s : read_workload(own_file(dir)).communicators.at(0).calls) {
      SCENARIO_CHECK(s.calls == 200);
      shapes_followed += s.applied.empty() ? 0 : 1;
    }
    SCENARIO_CHECK(shapes_followed >= 50);  // about 86 expected; a fixed gap gives 1
  });
}

// At most one followed call per CCTUNE_WORKLOAD_FOLLOW_GAP_MS on a thread, however many calls.
TEST(ProfilerSo, FollowedCallsAreRateBounded) {
  RUN_SCENARIO({
    use_workload(fresh_dir("rate"));
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "2", 1);
    setenv("CCTUNE_WORKLOAD_FOLLOW_GAP_MS", "60000", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xf2, 1, 2, 0, testing::capture_logger) && d.context);
    int followed = 0;
    for (int i = 0; i < 1000; ++i) followed += d.collective("AllReduce", 64, "ncclFloat32", "Ring", "LL", 1);
    SCENARIO_CHECK(followed == 1);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
  RUN_SCENARIO({
    use_workload(fresh_dir("rate-bad"));
    setenv("CCTUNE_WORKLOAD_FOLLOW_GAP_MS", "-5", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xf3, 1, 2, 0, testing::capture_logger) && d.context);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);  // names the variable; 10 ms stays
    SCENARIO_CHECK(testing::all_lines().find("CCTUNE_WORKLOAD_FOLLOW_GAP_MS") != std::string::npos);
  });
}

TEST(ProfilerSo, VersionFourRecordsToo) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("v4");
    use_workload(dir);
    const auto* v4 = static_cast<const nccl_abi::ProfilerV4*>(dlsym(open_plugin(), "ncclProfiler_v4"));
    void* ctx = nullptr;
    int mask = 0;
    SCENARIO_CHECK(v4->init(&ctx, &mask, "c", 0x77, 1, 2, 0, testing::capture_logger) == nccl_abi::kSuccess && ctx);
    SCENARIO_CHECK(mask == task_events);  // no API events before v5: the task event counts every call
    nccl_abi::ProfilerEventDescrV4 e{};
    e.type = nccl_abi::kProfileColl;
    e.coll.func = "Broadcast";
    e.coll.count = 100;
    e.coll.root = 1;
    e.coll.datatype = "ncclUint8";
    e.coll.algo = "Ring";
    e.coll.proto = "LL";
    void* h = nullptr;
    SCENARIO_CHECK(v4->start_event(ctx, &h, &e) == nccl_abi::kSuccess && h);
    v4->stop_event(h);
    v4->finalize(ctx);
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators.size() == 1 && w.communicators[0].calls.size() == 1);
    const workload::CallStats& s = w.communicators[0].calls[0];
    SCENARIO_CHECK(s.shape.collective == Collective::Broadcast && s.shape.root == 1 && s.calls == 1 && s.shape.bytes == 100);
  });
}

TEST(ProfilerSo, MemoryStaysBoundedUnderAMillionDistinctSizes) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("million");
    use_workload(dir);
    auto d = driver();
    SCENARIO_CHECK(d.init(0x1, 1, 8, 0, testing::capture_logger));
    // Fill the table first, so the RSS baseline includes it: what follows must add nothing.
    for (std::size_t i = 1; i <= 4096; ++i) d.collective("AllReduce", i, "ncclFloat32", "Ring", "LL", 1);
    const std::size_t before = rss_kib();
    for (std::size_t i = 4097; i <= 1000000; ++i) d.collective("AllReduce", i, "ncclFloat32", "Ring", "LL", 1);
    const std::size_t after = rss_kib();
    SCENARIO_CHECK(d.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators.size() == 1);
    SCENARIO_CHECK(w.communicators[0].calls.size() == 4096);
    SCENARIO_CHECK(w.communicators[0].calls_not_recorded == 1000000 - 4096);
    // 995,904 more shapes stored would take > 100 MiB; nothing stored may grow it by 8 MiB.
    if (after > before + 8 * 1024) {
      std::fprintf(stderr, "RSS grew from %zu KiB to %zu KiB\n", before, after);
      std::_Exit(1);
    }
  });
}

// Groups from v5's API events: what one thread issued inside one ncclGroupStart/End, per
// communicator, in issue order and as the caller passed it; lone calls are no group.
TEST(ProfilerSo, RecordsGroupsFromTheApiEvents) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("groups");
    use_workload(dir);
    auto a = driver(), b = driver();
    SCENARIO_CHECK(a.init(0xa, 1, 2, 0, testing::capture_logger) && b.init(0xb, 1, 2, 0, testing::capture_logger));
    for (int step = 0; step < 4; ++step) {
      void* g = a.group_start();  // no handle: the group is closed when the next one starts
      a.coll_api(g, "AllReduce", 131072, "ncclFloat32");
      a.coll_api(g, "AllGather", 4096, "ncclBfloat16");
      b.coll_api(g, "AllReduce", 8, "ncclFloat32");  // one call of b's in a's group: no group for b
      a.p2p_api(g, "Send", 16384, "ncclFloat32");
      a.p2p_api(g, "Recv", 16384, "ncclFloat32");
      a.group_stop(g);
      void* lone = a.group_start(1);
      a.coll_api(lone, "AllReduce", 65536, "ncclFloat32");
      a.group_stop(lone);
    }
    a.coll_api(a.group_start(), "Broadcast", 7, "ncclInt8", 1);  // open at finalize, one call: no group
    SCENARIO_CHECK(a.finalize() && b.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators.size() == 2);
    for (const workload::Communicator& c : w.communicators) {
      if (c.id == "0xb") {
        SCENARIO_CHECK(c.groups.empty());
        continue;
      }
      SCENARIO_CHECK(c.groups.size() == 1 && c.groups_not_recorded == 0);
      const workload::CallGroup& g = c.groups[0];
      SCENARIO_CHECK(g.calls == 4 && g.members.size() == 4 && g.has_p2p());
      SCENARIO_CHECK(g.members[0].collective == Collective::AllReduce && g.members[0].count == 131072 && !g.members[0].op);
      SCENARIO_CHECK(g.members[1].collective == Collective::AllGather && g.members[1].dtype == DType::BFloat16 &&
                     g.members[1].bytes == 4096u * 2 * 2);  // the caller's type; NCCL's nBytes
      SCENARIO_CHECK(g.members[2].kind == workload::CallKind::Send && g.members[3].kind == workload::CallKind::Recv);
    }
  });
}

// A group is closed when its thread's next group starts (or the thread ends): by then its
// communicator may be gone, destroyed on another thread. That group is dropped, not recorded
// into freed memory; the thread's later groups on a live communicator still count.
TEST(ProfilerSo, GroupOfADestroyedCommunicatorIsDropped) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("group-gone");
    use_workload(dir);
    auto gone = driver(), live = driver();
    SCENARIO_CHECK(gone.init(0x60, 1, 2, 0, testing::capture_logger) && live.init(0x61, 1, 2, 0, testing::capture_logger));
    std::atomic<int> stage{0};
    std::thread t([&] {
      void* g = gone.group_start();
      gone.coll_api(g, "AllReduce", 8, "ncclFloat32");
      gone.coll_api(g, "AllReduce", 16, "ncclFloat32");
      stage = 1;
      while (stage.load() != 2) std::this_thread::yield();
      g = live.group_start();  // closes the group of `gone`, destroyed meanwhile
      live.coll_api(g, "AllGather", 32, "ncclInt8");
      live.coll_api(g, "AllGather", 64, "ncclInt8");
    });  // the thread's end closes the group of `live`
    while (stage.load() != 1) std::this_thread::yield();
    SCENARIO_CHECK(gone.finalize());
    stage = 2;
    t.join();
    SCENARIO_CHECK(live.finalize());
    for (const workload::Communicator& c : read_workload(own_file(dir)).communicators) {
      if (c.id == "0x60") SCENARIO_CHECK(c.groups.empty() && c.calls.size() == 2);
      else SCENARIO_CHECK(c.groups.size() == 1 && c.groups[0].calls == 1 && c.groups[0].members.size() == 2);
    }
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

// Each thread's state is remembered by the communicators it calls, and handed to a later
// thread when it ends (thread_state.hpp). Threads taking turns on one communicator (each after
// the last has ended, so it may get the last one's stack and thread pointer), and two threads
// alternating call by call, must count every call and record each thread's last group.
TEST(ProfilerSo, ThreadsTakingTurnsCountEveryCall) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("thread-turns");
    use_workload(dir);
    auto d = driver();
    SCENARIO_CHECK(d.init(0x70, 1, 2, 0, testing::capture_logger));
    std::atomic<int> turn{0};
    auto alternate = [&](int me) {
      for (int i = 0; i < 200; ++i) {
        while (turn.load() % 2 != me) std::this_thread::yield();
        d.collective("AllGather", 64, "ncclInt8", "Ring", "Simple", 2);
        turn.fetch_add(1);
      }
    };
    std::thread a(alternate, 0), b(alternate, 1);
    a.join();
    b.join();
    for (std::size_t k = 0; k < 8; ++k) {
      std::thread t([&] {
        for (int i = 0; i < 100; ++i) d.collective("AllReduce", 1000 + k, "ncclFloat32", "Ring", "Simple", 2);
        void* g = d.group_start();
        d.coll_api(g, "AllReduce", 8, "ncclFloat32");
        d.coll_api(g, "AllReduce", 16, "ncclFloat32");
      });  // ends with its group open: the thread's end records it (the last one's, no later thread)
      t.join();
    }
    SCENARIO_CHECK(d.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    const workload::Communicator& c = w.communicators.at(0);
    std::map<std::uint64_t, std::uint64_t> calls_by_bytes;
    for (const workload::CallStats& s : c.calls) calls_by_bytes[s.shape.bytes] += s.calls;
    for (std::uint64_t k = 0; k < 8; ++k) SCENARIO_CHECK(calls_by_bytes[4 * (1000 + k)] == 100);
    SCENARIO_CHECK(calls_by_bytes[32] == 8 && calls_by_bytes[64] == 8);  // the groups' AllReduces of 8 and 16 floats
    SCENARIO_CHECK(calls_by_bytes[64u * 2] == 400);                      // AllGather: count x nranks
    SCENARIO_CHECK(c.groups.size() == 1 && c.groups[0].calls == 8 && c.groups[0].members.size() == 2);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

// Distinct groups are bounded like shapes: a job that never repeats a group grows nothing.
TEST(ProfilerSo, DistinctGroupsAreBounded) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("group-bound");
    use_workload(dir);
    auto d = driver();
    SCENARIO_CHECK(d.init(0x1, 1, 2, 0, testing::capture_logger));
    auto group_of = [&](std::size_t n) {
      void* g = d.group_start();
      d.coll_api(g, "AllReduce", n, "ncclFloat32");
      d.coll_api(g, "AllReduce", n + 1, "ncclFloat32");
      d.group_stop(g);
    };
    for (std::size_t i = 1; i <= 1024; ++i) group_of(i);
    const std::size_t before = rss_kib();
    for (std::size_t i = 1025; i <= 200000; ++i) group_of(i);
    const std::size_t after = rss_kib();
    void* big = d.group_start();
    for (std::size_t i = 0; i < 300; ++i) d.coll_api(big, "AllReduce", i + 1, "ncclFloat32");
    d.group_stop(big);
    SCENARIO_CHECK(d.finalize());
    const workload::Workload w = read_workload(own_file(dir));
    SCENARIO_CHECK(w.communicators[0].groups.size() == 1024);
    SCENARIO_CHECK(w.communicators[0].groups_not_recorded == 200000 - 1024 + 1);
    if (after > before + 8 * 1024) {
      std::fprintf(stderr, "RSS grew from %zu KiB to %zu KiB\n", before, after);
      std::_Exit(1);
    }
  });
}

// Every hostile CCTUNE_WORKLOAD: init succeeds without a context, NCCL is told to send no
// events, one warning names the variable, nothing is written.
void expect_refused(const std::string& value, const char* must_mention) {
  setenv("CCTUNE_WORKLOAD", value.c_str(), 1);
  auto d = driver();
  SCENARIO_CHECK(d.init(0x5, 1, 2, 0, testing::capture_logger));
  SCENARIO_CHECK(d.context == nullptr && d.mask == 0);
  d.mask = -1;  // as if NCCL delivered every event all the same
  SCENARIO_CHECK(!d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1));
  SCENARIO_CHECK(d.finalize());
  auto d2 = driver();  // a second communicator: no second warning
  SCENARIO_CHECK(d2.init(0x6, 1, 2, 1, testing::capture_logger) && d2.context == nullptr);
  SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
  SCENARIO_CHECK(testing::all_lines().find("CCTUNE_WORKLOAD") != std::string::npos);
  SCENARIO_CHECK(testing::all_lines().find(must_mention) != std::string::npos);
}

TEST(ProfilerSo, HostileWorkloadPathsAreRefusedOnce) {
  const std::string base = fresh_dir("hostile");
  const std::string file = base + "/a-file", link = base + "/a-link", target = base + "/target";
  std::ofstream(file) << "x";
  fs::create_directories(target);
  fs::create_directory_symlink(target, link);
  RUN_SCENARIO({ expect_refused(base + "/missing", "create the directory"); });
  RUN_SCENARIO({ expect_refused(file, "not a directory"); });
  RUN_SCENARIO({ expect_refused(link, "symbolic link"); });
  RUN_SCENARIO({ expect_refused("/" + std::string(5000, 'a'), "bytes long"); });
  RUN_SCENARIO({ expect_refused(base + "/\xff\xfe", "UTF-8"); });
  if (geteuid() != 0) {  // root writes anywhere
    const std::string locked = base + "/locked";
    fs::create_directories(locked);
    chmod(locked.c_str(), 0500);
    RUN_SCENARIO({ expect_refused(locked, "not writable"); });
  }
  EXPECT_TRUE(fs::is_empty(target));
}

TEST(ProfilerSo, WriteFailureWarnsOnceAndGoesQuiet) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("vanishing");
    use_workload(dir);
    auto d = driver();
    SCENARIO_CHECK(d.init(0x9, 1, 2, 0, testing::capture_logger) && d.context);
    d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1);
    fs::remove_all(dir);  // the job's scratch space went away
    SCENARIO_CHECK(d.finalize());
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
    auto d2 = driver();
    SCENARIO_CHECK(d2.init(0xa, 1, 2, 0, testing::capture_logger) && d2.context == nullptr && d2.mask == 0);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
  });
}

TEST(ProfilerSo, EventMaskFollowsTheSettingAndTheControlFile) {
  RUN_SCENARIO({
    const std::string dir = fresh_dir("mask");
    use_workload(dir, "1", "calls");
    auto d = driver();
    SCENARIO_CHECK(d.init(0xb, 1, 2, 0, testing::capture_logger) && d.context);
    SCENARIO_CHECK(d.mask == api_events);  // task events for the followed calls only: see below
    d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1);  // counted
    std::ofstream(dir + "/cctune-events") << "off\n";
    usleep(1100 * 1000);
    // The interval has passed: as this call's group starts the file is re-read and written. NCCL
    // read its mask just before, so this call is still counted.
    d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1);
    // Off records nothing, but keeps the group API event: it is what re-reads the control file.
    SCENARIO_CHECK(d.mask == nccl_abi::kProfileGroupApi);
    SCENARIO_CHECK(fs::exists(own_file(dir)));  // written at the interval, before finalize
    SCENARIO_CHECK(read_workload(own_file(dir)).communicators.at(0).calls.at(0).calls == 1);
    d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1);  // not counted
    std::ofstream(dir + "/cctune-events") << "timing";
    usleep(1100 * 1000);
    d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1);  // not counted: NCCL's mask was still off
    SCENARIO_CHECK(d.mask == api_events);
    d.collective("AllReduce", 8, "ncclFloat32", "Ring", "LL", 1);  // counted
    SCENARIO_CHECK(d.finalize());
    SCENARIO_CHECK(read_workload(own_file(dir)).communicators.at(0).calls.at(0).calls == 3);
  });
  RUN_SCENARIO({
    use_workload(fresh_dir("mask-bad"), "soon", "everything");
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "1", 1);  // every call timed: kernel channels always on
    auto d = driver();
    SCENARIO_CHECK(d.init(0xc, 1, 2, 0, testing::capture_logger) && d.context);
    SCENARIO_CHECK(d.mask == (api_events | task_events | nccl_abi::kProfileKernelCh));
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
  });
}

// One call in CCTUNE_WORKLOAD_TIMING_EVERY is followed, on average (task event, and in timing
// mode kernel channels): NCCL reads the mask as each call starts, so the plugin sets it as a
// call starts for the next one; the rest get only their API events.
TEST(ProfilerSo, FollowedCallsAreSampled) {
  RUN_SCENARIO({
    use_workload(fresh_dir("sampled"));
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "3", 1);
    setenv("CCTUNE_WORKLOAD_FOLLOW_GAP_MS", "0", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xd, 1, 2, 0, testing::capture_logger) && d.context);
    int followed = 0, other = 0;
    for (int call = 1; call <= 3000; ++call) {
      d.group_stop(d.group_start(1));
      followed += d.mask == (api_events | task_events | nccl_abi::kProfileKernelCh);
      other += d.mask != api_events && d.mask != (api_events | task_events | nccl_abi::kProfileKernelCh);
    }
    SCENARIO_CHECK(followed >= 900 && followed <= 1100 && other == 0);  // about 1000: gaps of 1 to 5 calls
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
  RUN_SCENARIO({
    use_workload(fresh_dir("sampled-bad"));
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "0", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xe, 1, 2, 0, testing::capture_logger) && d.context);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);  // the note names the variable; 100 stays
    SCENARIO_CHECK(d.mask == api_events);
  });
}

// CCTUNE_PROFILE's measured busbw against live GPU times: the allreduce of 4 MiB runs at a
// quarter of the 100 GB/s the sweep measured; 1 MiB runs as measured.
TEST(ProfilerSo, ProductionWatchWarnsOncePerShapeAndRecordsIt) {
  RUN_SCENARIO({
    use_profile("watch_profile.json");
    const std::string dir = fresh_dir("watch");
    use_workload(dir);
    setenv("CCTUNE_WORKLOAD_TIMING_EVERY", "1", 1);
    auto d = driver();
    SCENARIO_CHECK(d.init(0xfeed, 1, 8, 2, testing::capture_logger) && d.context);
    const double slow_ns = 4194304.0 / (25.0 / 1.75);   // busbw 25 GB/s: ns = bytes / (GB/s)
    const double fine_ns = 1048576.0 / (60.0 / 1.75);
    for (int i = 0; i < 20; ++i) {
      d.timed_collective("AllReduce", 1048576, "ncclFloat32", 1000000000ull * (i + 1), static_cast<std::uint64_t>(slow_ns), 1);
      d.timed_collective("AllReduce", 262144, "ncclFloat32", 1000000000ull * (i + 1), static_cast<std::uint64_t>(fine_ns), 1);
    }
    SCENARIO_CHECK(d.finalize());
    auto d2 = driver();  // written again at its finalize: the finding is not warned twice
    SCENARIO_CHECK(d2.init(0xbeef, 1, 4, 0, testing::capture_logger));
    SCENARIO_CHECK(d2.finalize());
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
    SCENARIO_CHECK(testing::all_lines().find("cctune watch: communicator 0xfeed rank 2: allreduce of 4194304 bytes") != std::string::npos);
    const workload::Workload w = read_workload(own_file(dir));
    const workload::Communicator* c = nullptr;
    for (const auto& comm : w.communicators) if (comm.id == "0xfeed") c = &comm;
    SCENARIO_CHECK(c && c->watch.size() == 1);
    SCENARIO_CHECK(c->watch[0].bytes == 4194304 && c->watch[0].profile_busbw_GBps == 100.0 && c->watch[0].rank == 2);
    SCENARIO_CHECK(c->watch[0].shortfall > 0.65 && c->watch[0].shortfall < 0.85);
  });
}

TEST(ProfilerSo, TunerHalfStillSteersWhenBothHalvesAreLoaded) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    use_workload(fresh_dir("both"));
    auto d = driver();
    SCENARIO_CHECK(d.init(7, 1, 8, 0, testing::capture_logger) && d.context);
    void* tuner = init(8, 1);
    Call small = get(tuner, nccl_abi::kFuncAllReduce, 4096);
    SCENARIO_CHECK(chose(small, kRing, kLL) && small.channels == 4);
    d.collective("AllReduce", 1024, "ncclFloat32", "Ring", "LL", 4);
    SCENARIO_CHECK(d.finalize());
    SCENARIO_CHECK(v5().finalize(tuner) == nccl_abi::kSuccess);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

}  // namespace
}  // namespace cctune::tuner
