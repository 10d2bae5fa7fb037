// libnccl-tuner-cctune.so as NCCL loads it in production: dlopen, dlsym of the versioned
// symbols, calls through cctune's own declarations with cost tables in NCCL's shape.
// The plugin reads CCTUNE_PROFILE once per process, so each scenario runs in a child
// process of its own (gtest's death-test machinery) with its own environment.
#include "plugin_scenario.hpp"

namespace cctune::tuner {
namespace {

using namespace scenario;

TEST(PluginSo, ExportsOnlyNcclsEntryPoints) {
  void* handle = dlopen(CCTUNE_TUNER_PLUGIN_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_NE(dlsym(handle, "ncclTunerPlugin_v5"), nullptr);
  EXPECT_NE(dlsym(handle, "ncclTunerPlugin_v4"), nullptr);
  EXPECT_NE(dlsym(handle, "ncclTunerPlugin_v3"), nullptr);
  EXPECT_EQ(dlsym(handle, "_ZN6cctune5tuner12SweepControl8instanceEv"), nullptr);
  EXPECT_STREQ(static_cast<const nccl_abi::TunerV5*>(dlsym(handle, "ncclTunerPlugin_v5"))->name, "cctune");
}

TEST(PluginSo, ProfileChoicesApplyPerSize) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    void* ctx = init(8, 1);
    Call small = get(ctx, nccl_abi::kFuncAllReduce, 4096);
    SCENARIO_CHECK(chose(small, kRing, kLL) && small.channels == 4);
    SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncAllReduce, 65536)));  // between two rules
    Call mid = get(ctx, nccl_abi::kFuncAllReduce, 1048576);
    SCENARIO_CHECK(chose(mid, kRing, kSimple) && mid.channels == 32);
    Call last = get(ctx, nccl_abi::kFuncAllReduce, 67108863);
    SCENARIO_CHECK(chose(last, kRing, kSimple) && last.channels == 32);
    Call big = get(ctx, nccl_abi::kFuncAllReduce, std::size_t(1) << 30);
    SCENARIO_CHECK(chose(big, kTree, kLL128) && big.channels == 0);  // channels 0: NCCL's count
    Call gather = get(ctx, nccl_abi::kFuncAllGather, 8388608);
    SCENARIO_CHECK(chose(gather, kRing, kLL128) && gather.channels == 16);
    SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncAllGather, 8388607)));
    SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncReduceScatter, 8388608)));
    SCENARIO_CHECK(untouched(get(ctx, 5 /* SendRecv */, 8388608)));
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
    SCENARIO_CHECK(testing::all_lines().find("4 of 5 rules apply to nranks=8 nnodes=1") != std::string::npos);
    SCENARIO_CHECK(v5().finalize(ctx) == nccl_abi::kSuccess);
  });
}

TEST(PluginSo, RulesForOtherShapesLeaveNcclAlone) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    for (auto [nranks, nnodes] : {std::pair<std::size_t, std::size_t>{4, 1}, {8, 2}, {16, 1}}) {
      void* ctx = init(nranks, nnodes);
      for (std::size_t bytes : {std::size_t(4096), std::size_t(1) << 20, std::size_t(1) << 30})
        SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncAllReduce, bytes)));
      v5().finalize(ctx);
    }
    void* ctx = init(16, 2);  // the profile's other shape
    SCENARIO_CHECK(chose(get(ctx, nccl_abi::kFuncAllReduce, 4096), kTree, kSimple));
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

TEST(PluginSo, RuleUnsupportedAtACallLeavesThatCallAlone) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    void* ctx = init(8, 1);
    for (int i = 0; i < 3; ++i) {
      Call c;
      c.table.cells[kTree][kLL128] = testing::kIgnore;  // e.g. NCCL_PROTO=^LL128 in this job
      const FakeCostTable before = c.table;
      SCENARIO_CHECK(v5().get_coll_info(ctx, nccl_abi::kFuncAllReduce, std::size_t(1) << 30, 1,
                                        c.table.as_nccl_passes_it(), 7, 3, 0, &c.channels) == nccl_abi::kSuccess);
      SCENARIO_CHECK(c.table.equals(before) && c.channels == 0);
    }
    int notes = 0;
    for (const auto& [level, line] : testing::captured_log()) notes += line.find("unsupported") != std::string::npos;
    SCENARIO_CHECK(notes == 1);  // said once, not on every launch
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 0);
  });
}

void expect_one_warning_and_no_change(const char* must_mention) {
  for (int comm = 0; comm < 3; ++comm) {  // several communicators, one warning
    void* ctx = init(8, 1);
    SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncAllReduce, 4096)));
    SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncAllReduce, 1 << 20)));
    v5().finalize(ctx);
  }
  SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
  SCENARIO_CHECK(testing::captured_log().size() == 1);
  SCENARIO_CHECK(testing::captured_log()[0].second.find(must_mention) != std::string::npos);
  SCENARIO_CHECK(testing::captured_log()[0].second.find("NCCL's own choices are used") != std::string::npos);
}

TEST(PluginSo, MissingProfileWarnsOnceAndChangesNothing) {
  RUN_SCENARIO({
    use_profile("no_such_profile.json");
    expect_one_warning_and_no_change("no_such_profile.json");
  });
}

TEST(PluginSo, MalformedProfileWarnsOnceAndChangesNothing) {
  RUN_SCENARIO({
    use_profile("malformed_profile.json");
    expect_one_warning_and_no_change("not valid JSON");
  });
}

// Issue 24 F10: what the plugin logs quotes the profile (its path, nccl_version, schema);
// NCCL's log gets it as one line, controls shown escaped, at most 1024 bytes (+ "...").
TEST(PluginSo, LoggedTextIsOneEscapedBoundedLine) {
  RUN_SCENARIO({
    use_profile("no_such\n[0] NCCL INFO forged \x1b]0;PWNED\x07.json");
    expect_one_warning_and_no_change("no_such\\n[0] NCCL INFO forged \\x1b]0;PWNED\\x07.json");
    for (const char c : testing::captured_log()[0].second) SCENARIO_CHECK(static_cast<unsigned char>(c) >= 0x20);
  });
  RUN_SCENARIO({
    use_profile(std::string(3000, 'x') + ".json");
    void* ctx = init(8, 1);
    v5().finalize(ctx);
    SCENARIO_CHECK(testing::captured_log().size() == 1);
    SCENARIO_CHECK(testing::captured_log()[0].second.size() <= 1024 + 3);
  });
}

TEST(PluginSo, OverlappingRulesWarnOnceAndChangeNothing) {
  RUN_SCENARIO({
    use_profile("overlapping_profile.json");
    expect_one_warning_and_no_change("overlap");
  });
}

TEST(PluginSo, OtherTopologyWarnsOnceAndChangesNothing) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    setenv("CCTUNE_TOPOLOGY_FINGERPRINT", "0000aa", 1);
    expect_one_warning_and_no_change("fingerprint");
  });
}

TEST(PluginSo, SameTopologyFingerprintApplies) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    setenv("CCTUNE_TOPOLOGY_FINGERPRINT", "9f2c4e", 1);
    SCENARIO_CHECK(chose(get(init(8, 1), nccl_abi::kFuncAllReduce, 4096), kRing, kLL));
  });
}

TEST(PluginSo, WithoutCctuneProfileItIsSilentAndInert) {
  RUN_SCENARIO({
    unsetenv("CCTUNE_PROFILE");
    void* ctx = init(8, 1);
    SCENARIO_CHECK(untouched(get(ctx, nccl_abi::kFuncAllReduce, 4096)));
    SCENARIO_CHECK(testing::captured_log().empty());
  });
}

TEST(PluginSo, SurvivesNullArguments) {
  RUN_SCENARIO({
    use_profile("malformed_profile.json");
    void* ctx = init(8, 1, nullptr);  // no logger: nothing to warn through
    SCENARIO_CHECK(v5().init(nullptr, 0, 8, 1, nullptr, nullptr, nullptr) == nccl_abi::kSuccess);
    int channels = 0;
    SCENARIO_CHECK(v5().get_coll_info(ctx, nccl_abi::kFuncAllReduce, 4096, 1, nullptr, 7, 3, 0, &channels) == 0);
    FakeCostTable t;
    SCENARIO_CHECK(v5().get_coll_info(nullptr, nccl_abi::kFuncAllReduce, 4096, 1, t.as_nccl_passes_it(), 7, 3, 0,
                                      nullptr) == 0);
    SCENARIO_CHECK(v5().get_coll_info(ctx, nccl_abi::kFuncAllReduce, 4096, 1, t.as_nccl_passes_it(), 0, 3, 0,
                                      &channels) == 0);
    SCENARIO_CHECK(v5().finalize(nullptr) == nccl_abi::kSuccess);
    SCENARIO_CHECK(v5().finalize(ctx) == nccl_abi::kSuccess);
  });
}

// The cost table of the same communicator with NVLS enabled: NCCL offers nvls/simple too.
FakeCostTable with_nvls_offered() {
  FakeCostTable t;
  t.cells[4][kSimple] = 18.0f;
  return t;
}

Call get_from(void* ctx, int func, std::size_t bytes, const FakeCostTable& table) {
  Call c;
  c.table = table;
  SCENARIO_CHECK(v5().get_coll_info(ctx, func, bytes, 1, c.table.as_nccl_passes_it(), testing::kAlgos, testing::kProtos, 0,
                                    &c.channels) == nccl_abi::kSuccess);
  return c;
}

int warnings_mentioning(const std::string& text) {
  int n = 0;
  for (const auto& [level, line] : testing::captured_log()) n += level == nccl_abi::kLogWarn && line.find(text) != std::string::npos;
  return n;
}

// unit_profile.json records no offered algorithms: it was measured the way cctune used to,
// with NVLS forced off, so its rules never competed against NVLS.
TEST(PluginSo, NvlsOfferedWhereTheProfileNeverMetItIsLeftToNcclWithOneWarning) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    const FakeCostTable nvls = with_nvls_offered();
    for (int comm = 0; comm < 3; ++comm) {
      void* ctx = init(8, 1);
      for (std::size_t bytes : {std::size_t(4096), std::size_t(1) << 20, std::size_t(1) << 30}) {
        const Call c = get_from(ctx, nccl_abi::kFuncAllReduce, bytes, nvls);
        SCENARIO_CHECK(c.table.equals(nvls) && c.channels == 0);
      }
      // Where NCCL offers nothing new, the rule still applies.
      SCENARIO_CHECK(chose(get(ctx, nccl_abi::kFuncAllReduce, 4096), kRing, kLL));
      v5().finalize(ctx);
    }
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
    SCENARIO_CHECK(warnings_mentioning("NCCL offers nvls for allreduce") == 1);
    SCENARIO_CHECK(warnings_mentioning("never competed against it") == 1);
  });
}

TEST(PluginSo, ProfileMeasuredWithNvlsSteersToIt) {
  RUN_SCENARIO({
    use_profile("nvls_profile.json");
    void* ctx = init(8, 1);
    const Call big = get_from(ctx, nccl_abi::kFuncAllReduce, std::size_t(1) << 30, with_nvls_offered());
    FakeCostTable want = with_nvls_offered();
    want.cells[4][kSimple] = 0.0f;
    SCENARIO_CHECK(big.table.equals(want) && big.channels == 0);
    // AllGather as NCCL tables it (no tree). With NVLS offered too, which that profile's
    // allgather rules never met, NCCL keeps its choice; without it the rule applies.
    FakeCostTable gather_table;
    for (int p = 0; p < testing::kProtos; ++p) gather_table.cells[kTree][p] = testing::kIgnore;
    FakeCostTable gather_nvls = gather_table;
    gather_nvls.cells[4][kSimple] = 18.0f;
    SCENARIO_CHECK(get_from(ctx, nccl_abi::kFuncAllGather, 8388608, gather_nvls).table.equals(gather_nvls));
    FakeCostTable gather_want = gather_table;
    gather_want.cells[kRing][kLL128] = 0.0f;
    const Call gather = get_from(ctx, nccl_abi::kFuncAllGather, 8388608, gather_table);
    SCENARIO_CHECK(gather.table.equals(gather_want) && gather.channels == 16);
    SCENARIO_CHECK(testing::count_level(nccl_abi::kLogWarn) == 1);
    SCENARIO_CHECK(warnings_mentioning("NCCL offers nvls for allgather") == 1);
  });
}

TEST(PluginSo, OlderInterfaceVersionsBehaveTheSame) {
  RUN_SCENARIO({
    use_profile("unit_profile.json");
    void* handle = open_plugin();
    const auto* v4 = static_cast<const nccl_abi::TunerV4*>(dlsym(handle, "ncclTunerPlugin_v4"));
    const auto* v3 = static_cast<const nccl_abi::TunerV3*>(dlsym(handle, "ncclTunerPlugin_v3"));
    SCENARIO_CHECK(v4 && v3);
    void* c4 = nullptr;
    void* c3 = nullptr;
    SCENARIO_CHECK(v4->init(8, 1, testing::capture_logger, &c4) == 0);
    SCENARIO_CHECK(v3->init(8, 1, testing::capture_logger, &c3) == 0);
    Call a, b;
    SCENARIO_CHECK(v4->get_coll_info(c4, nccl_abi::kFuncAllReduce, 1 << 20, 1, a.table.as_nccl_passes_it(), 7, 3, 0,
                                     &a.channels) == 0);
    SCENARIO_CHECK(v3->get_coll_info(c3, nccl_abi::kFuncAllReduce, 1 << 20, 1, b.table.as_nccl_passes_it(), 7, 3,
                                     &b.channels) == 0);
    SCENARIO_CHECK(chose(a, kRing, kSimple) && a.channels == 32);
    SCENARIO_CHECK(chose(b, kRing, kSimple) && b.channels == 32);
    SCENARIO_CHECK(v4->destroy(c4) == 0 && v3->destroy(c3) == 0);
  });
}

}  // namespace
}  // namespace cctune::tuner
