// The plans of a search space, verify and diagnose are built from typed overrides
// (app/cli/plan_overrides.hpp) instead of strings parsed again. Their JSON is pinned to what the
// string path (SweepArgs filled with joined names, then resolve_sweep) produced before.
#include <gtest/gtest.h>

#include <set>

#include "app/ab/verify_plan.hpp"
#include "app/diagnose/diagnose_options.hpp"
#include "app/sweep/space_sweep.hpp"
#include "core/error.hpp"

namespace cctune::app {
namespace {

// The JSON the string path gave, captured from the typedplan branch (1e8b9d1); a space plan
// with the space's configs, as its sweep measured them.
const char* const kSpaceQuick = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather","reducescatter"],"dtype":"float32","iters":20,"max_time_s":0.2,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"},{"algo":"ring","channels":0,"graph":false,"proto":"ll"},{"algo":"ring","channels":0,"graph":false,"proto":"ll128"},{"algo":"ring","channels":0,"graph":false,"proto":"simple"},{"algo":"tree","channels":0,"graph":false,"proto":"ll"},{"algo":"tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"tree","channels":0,"graph":false,"proto":"simple"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"halving"},"op":"sum","placements":["out"],"sizes_bytes":[8,64,512,4096,32768,262144,2097152,16777216,134217728],"target_noise":0.02,"warmup_iters":5})";
const char* const kSpaceDefault = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather","reducescatter","broadcast","reduce","alltoall","sendrecv","gather","scatter"],"dtype":"float32","iters":20,"max_time_s":0.5,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"},{"algo":"auto","channels":8,"graph":false,"proto":"auto"},{"algo":"auto","channels":16,"graph":false,"proto":"auto"},{"algo":"auto","channels":32,"graph":false,"proto":"auto"},{"algo":"ring","channels":0,"graph":false,"proto":"ll"},{"algo":"ring","channels":8,"graph":false,"proto":"ll"},{"algo":"ring","channels":16,"graph":false,"proto":"ll"},{"algo":"ring","channels":32,"graph":false,"proto":"ll"},{"algo":"ring","channels":0,"graph":false,"proto":"ll128"},{"algo":"ring","channels":8,"graph":false,"proto":"ll128"},{"algo":"ring","channels":16,"graph":false,"proto":"ll128"},{"algo":"ring","channels":32,"graph":false,"proto":"ll128"},{"algo":"ring","channels":0,"graph":false,"proto":"simple"},{"algo":"ring","channels":8,"graph":false,"proto":"simple"},{"algo":"ring","channels":16,"graph":false,"proto":"simple"},{"algo":"ring","channels":32,"graph":false,"proto":"simple"},{"algo":"tree","channels":0,"graph":false,"proto":"ll"},{"algo":"tree","channels":8,"graph":false,"proto":"ll"},{"algo":"tree","channels":16,"graph":false,"proto":"ll"},{"algo":"tree","channels":32,"graph":false,"proto":"ll"},{"algo":"tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"tree","channels":8,"graph":false,"proto":"ll128"},{"algo":"tree","channels":16,"graph":false,"proto":"ll128"},{"algo":"tree","channels":32,"graph":false,"proto":"ll128"},{"algo":"tree","channels":0,"graph":false,"proto":"simple"},{"algo":"tree","channels":8,"graph":false,"proto":"simple"},{"algo":"tree","channels":16,"graph":false,"proto":"simple"},{"algo":"tree","channels":32,"graph":false,"proto":"simple"},{"algo":"pat","channels":0,"graph":false,"proto":"ll"},{"algo":"pat","channels":8,"graph":false,"proto":"ll"},{"algo":"pat","channels":16,"graph":false,"proto":"ll"},{"algo":"pat","channels":32,"graph":false,"proto":"ll"},{"algo":"pat","channels":0,"graph":false,"proto":"ll128"},{"algo":"pat","channels":8,"graph":false,"proto":"ll128"},{"algo":"pat","channels":16,"graph":false,"proto":"ll128"},{"algo":"pat","channels":32,"graph":false,"proto":"ll128"},{"algo":"pat","channels":0,"graph":false,"proto":"simple"},{"algo":"pat","channels":8,"graph":false,"proto":"simple"},{"algo":"pat","channels":16,"graph":false,"proto":"simple"},{"algo":"pat","channels":32,"graph":false,"proto":"simple"},{"algo":"nvls","channels":0,"graph":false,"proto":"ll"},{"algo":"nvls","channels":8,"graph":false,"proto":"ll"},{"algo":"nvls","channels":16,"graph":false,"proto":"ll"},{"algo":"nvls","channels":32,"graph":false,"proto":"ll"},{"algo":"nvls","channels":0,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":8,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":16,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":32,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":0,"graph":false,"proto":"simple"},{"algo":"nvls","channels":8,"graph":false,"proto":"simple"},{"algo":"nvls","channels":16,"graph":false,"proto":"simple"},{"algo":"nvls","channels":32,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":0,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":8,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":16,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":32,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":8,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":16,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":32,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":0,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":8,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":16,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":32,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":0,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":8,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":16,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":32,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":0,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":8,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":16,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":32,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":0,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":8,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":16,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":32,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":0,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":8,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":16,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":32,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":0,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":8,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":16,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":32,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":0,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":8,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":16,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":32,"graph":false,"proto":"simple"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"halving"},"op":"sum","placements":["out"],"root":0,"sizes_bytes":[8,32,128,512,2048,8192,32768,131072,524288,2097152,8388608,33554432,134217728,536870912],"target_noise":0.01,"warmup_iters":5})";
const char* const kSpaceDefaultTyped = R"({"backend":"nccl","check":false,"collectives":["allreduce","broadcast"],"dtype":["bfloat16","float32"],"iters":20,"max_time_s":0.5,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"},{"algo":"auto","channels":8,"graph":false,"proto":"auto"},{"algo":"auto","channels":16,"graph":false,"proto":"auto"},{"algo":"auto","channels":32,"graph":false,"proto":"auto"},{"algo":"ring","channels":0,"graph":false,"proto":"ll"},{"algo":"ring","channels":8,"graph":false,"proto":"ll"},{"algo":"ring","channels":16,"graph":false,"proto":"ll"},{"algo":"ring","channels":32,"graph":false,"proto":"ll"},{"algo":"ring","channels":0,"graph":false,"proto":"ll128"},{"algo":"ring","channels":8,"graph":false,"proto":"ll128"},{"algo":"ring","channels":16,"graph":false,"proto":"ll128"},{"algo":"ring","channels":32,"graph":false,"proto":"ll128"},{"algo":"ring","channels":0,"graph":false,"proto":"simple"},{"algo":"ring","channels":8,"graph":false,"proto":"simple"},{"algo":"ring","channels":16,"graph":false,"proto":"simple"},{"algo":"ring","channels":32,"graph":false,"proto":"simple"},{"algo":"tree","channels":0,"graph":false,"proto":"ll"},{"algo":"tree","channels":8,"graph":false,"proto":"ll"},{"algo":"tree","channels":16,"graph":false,"proto":"ll"},{"algo":"tree","channels":32,"graph":false,"proto":"ll"},{"algo":"tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"tree","channels":8,"graph":false,"proto":"ll128"},{"algo":"tree","channels":16,"graph":false,"proto":"ll128"},{"algo":"tree","channels":32,"graph":false,"proto":"ll128"},{"algo":"tree","channels":0,"graph":false,"proto":"simple"},{"algo":"tree","channels":8,"graph":false,"proto":"simple"},{"algo":"tree","channels":16,"graph":false,"proto":"simple"},{"algo":"tree","channels":32,"graph":false,"proto":"simple"},{"algo":"pat","channels":0,"graph":false,"proto":"ll"},{"algo":"pat","channels":8,"graph":false,"proto":"ll"},{"algo":"pat","channels":16,"graph":false,"proto":"ll"},{"algo":"pat","channels":32,"graph":false,"proto":"ll"},{"algo":"pat","channels":0,"graph":false,"proto":"ll128"},{"algo":"pat","channels":8,"graph":false,"proto":"ll128"},{"algo":"pat","channels":16,"graph":false,"proto":"ll128"},{"algo":"pat","channels":32,"graph":false,"proto":"ll128"},{"algo":"pat","channels":0,"graph":false,"proto":"simple"},{"algo":"pat","channels":8,"graph":false,"proto":"simple"},{"algo":"pat","channels":16,"graph":false,"proto":"simple"},{"algo":"pat","channels":32,"graph":false,"proto":"simple"},{"algo":"nvls","channels":0,"graph":false,"proto":"ll"},{"algo":"nvls","channels":8,"graph":false,"proto":"ll"},{"algo":"nvls","channels":16,"graph":false,"proto":"ll"},{"algo":"nvls","channels":32,"graph":false,"proto":"ll"},{"algo":"nvls","channels":0,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":8,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":16,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":32,"graph":false,"proto":"ll128"},{"algo":"nvls","channels":0,"graph":false,"proto":"simple"},{"algo":"nvls","channels":8,"graph":false,"proto":"simple"},{"algo":"nvls","channels":16,"graph":false,"proto":"simple"},{"algo":"nvls","channels":32,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":0,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":8,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":16,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":32,"graph":false,"proto":"ll"},{"algo":"nvls_tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":8,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":16,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":32,"graph":false,"proto":"ll128"},{"algo":"nvls_tree","channels":0,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":8,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":16,"graph":false,"proto":"simple"},{"algo":"nvls_tree","channels":32,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":0,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":8,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":16,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":32,"graph":false,"proto":"ll"},{"algo":"collnet_direct","channels":0,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":8,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":16,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":32,"graph":false,"proto":"ll128"},{"algo":"collnet_direct","channels":0,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":8,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":16,"graph":false,"proto":"simple"},{"algo":"collnet_direct","channels":32,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":0,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":8,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":16,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":32,"graph":false,"proto":"ll"},{"algo":"collnet_chain","channels":0,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":8,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":16,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":32,"graph":false,"proto":"ll128"},{"algo":"collnet_chain","channels":0,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":8,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":16,"graph":false,"proto":"simple"},{"algo":"collnet_chain","channels":32,"graph":false,"proto":"simple"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"halving"},"op":"sum","placements":["out"],"root":0,"sizes_bytes":[8,32,128,512,2048,8192,32768,131072,524288],"target_noise":0.01,"warmup_iters":2})";
const char* const kSpaceQuickSizes = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather","reducescatter"],"dtype":["int8","uint8","int32","uint32","int64","uint64","float16","float32","float64","bfloat16","float8e4m3","float8e5m2"],"iters":20,"max_time_s":0.5,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"},{"algo":"ring","channels":0,"graph":false,"proto":"ll"},{"algo":"ring","channels":0,"graph":false,"proto":"ll128"},{"algo":"ring","channels":0,"graph":false,"proto":"simple"},{"algo":"tree","channels":0,"graph":false,"proto":"ll"},{"algo":"tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"tree","channels":0,"graph":false,"proto":"simple"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"halving"},"op":"sum","placements":["out","in"],"sizes_bytes":[1048576,4194304],"target_noise":0.02,"warmup_iters":5})";
const char* const kSpaceQuickFactor = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather","reducescatter"],"dtype":"float32","iters":20,"max_time_s":0.2,"min_iters":7,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"},{"algo":"ring","channels":0,"graph":false,"proto":"ll"},{"algo":"ring","channels":0,"graph":false,"proto":"ll128"},{"algo":"ring","channels":0,"graph":false,"proto":"simple"},{"algo":"tree","channels":0,"graph":false,"proto":"ll"},{"algo":"tree","channels":0,"graph":false,"proto":"ll128"},{"algo":"tree","channels":0,"graph":false,"proto":"simple"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"halving"},"op":"sum","placements":["out"],"sizes_bytes":[1024,4096,16384,65536,262144,1048576,4194304,16777216,67108864,268435456],"target_noise":0.05,"warmup_iters":5})";
const char* const kVerifyRules = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather"],"dtype":"float32","iters":20,"max_time_s":1.0,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"exhaustive"},"op":"sum","placements":["out"],"sizes_bytes":[524288,1048576,2097152,4194304,8388608,16777216],"target_noise":0.01,"warmup_iters":5})";
const char* const kVerifyEmptyProfile = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather","reducescatter"],"dtype":"float32","iters":20,"max_time_s":1.0,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"exhaustive"},"op":"sum","placements":["out"],"sizes_bytes":[1048576,2097152,4194304,8388608,16777216,33554432,67108864],"target_noise":0.01,"warmup_iters":5})";
const char* const kVerifyTypedSizes = R"({"backend":"nccl","check":false,"collectives":["allreduce","allgather"],"dtype":"float32","iters":20,"max_time_s":1.0,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"exhaustive"},"op":"sum","placements":["out"],"sizes_bytes":[1024,2048,4096,8192,16384,32768,65536],"target_noise":0.01,"warmup_iters":5})";
const char* const kDiagnoseNccl = R"({"backend":"nccl","check":false,"collectives":["allreduce"],"dtype":"float32","iters":20,"max_time_s":1.0,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"}],"emulate_nodes":1,"gpus":0,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"exhaustive"},"op":"sum","placements":["out"],"sizes_bytes":[8,67108864],"target_noise":0.01,"warmup_iters":5})";
const char* const kDiagnoseMpi = R"({"backend":"mpi","check":false,"collectives":["allreduce"],"dtype":"float32","iters":20,"max_time_s":0.25,"min_iters":20,"op":"sum","placements":["out"],"sizes_bytes":[8,1048576],"target_noise":0.01,"warmup_iters":5})";
const char* const kDiagnoseShared = R"({"backend":"nccl","check":false,"collectives":["allreduce"],"dtype":"float32","iters":20,"max_time_s":1.0,"min_iters":20,"nccl":{"configs":[{"algo":"auto","channels":0,"graph":false,"proto":"auto"}],"emulate_nodes":1,"gpus":2,"graph":false,"group_timeout_s":0.0,"groups":[{"env":{},"label":"nvlink"}],"point_timeout_s":60.0,"search":"exhaustive","test_shared_gpu":2},"op":"sum","placements":["out"],"sizes_bytes":[1024,67108864],"target_noise":0.01,"test_mode":"shared-gpu","warmup_iters":5})";

std::string space_plan(const std::string& name, const std::set<std::string>& typed, SweepArgs a) {
  const auto space = tuner::load_space(std::string(CCTUNE_SOURCE_DIR) + "/configs/spaces/" + name + ".json", {});
  const PlanOverrides o = space_overrides(space, [&](const std::string& f) { return typed.count(f) > 0; }, a);
  return to_json(resolve_sweep(a, true, true, o)).dump();
}

SweepArgs nccl_args() {
  SweepArgs a;
  a.backend = "nccl";
  return a;
}

TEST(PlanOverrides, SpaceWithNothingTypedGivesThePlanOfBefore) {
  EXPECT_EQ(space_plan("quick", {}, nccl_args()), kSpaceQuick);
  EXPECT_EQ(space_plan("default", {}, nccl_args()), kSpaceDefault);
}

TEST(PlanOverrides, TypedFlagsWinOverTheSpaceAsBefore) {
  SweepArgs t = nccl_args();
  t.collectives = "allreduce,broadcast";
  t.max_bytes = "1M";
  t.dtype = "bfloat16,float32";
  t.warmup = 2;
  t.strategy = "halving";
  EXPECT_EQ(space_plan("default", {"--collectives", "--max-bytes", "--dtype", "--warmup-iters", "--strategy"}, t), kSpaceDefaultTyped);
  SweepArgs l = nccl_args();
  l.sizes = "1M,4M";
  l.sizes_given = true;
  l.placement = "both";
  l.max_time_s = 0.5;
  l.dtype = "all";
  EXPECT_EQ(space_plan("quick", {"--sizes", "--placement", "--max-time", "--dtype"}, l), kSpaceQuickSizes);
  SweepArgs f = nccl_args();
  f.factor = 4;
  f.min_bytes = "1K";
  f.target_noise = 0.05;
  f.min_iters = 7;
  EXPECT_EQ(space_plan("quick", {"--step-factor", "--min-bytes", "--target-noise", "--min-iters"}, f), kSpaceQuickFactor);
}

TEST(PlanOverrides, SpaceDataTypesAreJudgedAsNamed) {
  // float8 with a reduction: named by the space, so refused, not dropped as `all` would.
  SweepArgs a = nccl_args();
  a.backend = "mpi";
  const auto space = tuner::load_space(std::string(CCTUNE_SOURCE_DIR) + "/configs/spaces/quick.json", {});
  PlanOverrides o = space_overrides(space, [](const std::string&) { return false; }, a);
  o.dtypes = std::vector<DType>{DType::Float8e4m3};
  EXPECT_THROW(resolve_sweep(a, false, false, o), UsageError);
}

tuner::Profile two_rule_profile() {
  tuner::ProfileRule r1;
  r1.collective = Collective::AllReduce;
  r1.nranks = 8;
  r1.nnodes = 1;
  r1.max_bytes = (1u << 20) - 1;
  tuner::ProfileRule r2 = r1;
  r2.collective = Collective::AllGather;
  r2.min_bytes = 1u << 20;
  r2.max_bytes = 16u << 20;
  tuner::Profile p;
  p.rules = {r1, r2};
  return p;
}

TEST(PlanOverrides, VerifyPlansFromTheProfileAsBefore) {
  SweepArgs v = nccl_args();
  v.output_dir = "cctune-verify";
  v.placement = "out";
  const tuner::Profile p = two_rule_profile();
  EXPECT_EQ(to_json(resolve_sweep(v, true, true, verify_overrides(p, false, false))).dump(), kVerifyRules);
  EXPECT_EQ(to_json(resolve_sweep(v, true, true, verify_overrides(tuner::Profile{}, false, false))).dump(), kVerifyEmptyProfile);
  SweepArgs typed = v;
  typed.min_bytes = "1K";
  typed.max_bytes = "64K";
  EXPECT_EQ(to_json(resolve_sweep(typed, true, true, verify_overrides(p, true, false))).dump(), kVerifyTypedSizes);
}

TEST(PlanOverrides, DiagnosePlansAsBefore) {
  diagnose::DiagnoseArgs d;
  d.backend = "nccl";
  EXPECT_EQ(to_json(diagnose::resolve_diagnose_plan(d, true, true)).dump(), kDiagnoseNccl);
  diagnose::DiagnoseArgs m;
  m.bandwidth_size = "1M";
  m.max_time_s = 0.25;
  m.output_dir = "o";
  EXPECT_EQ(to_json(diagnose::resolve_diagnose_plan(m, false, false)).dump(), kDiagnoseMpi);
  diagnose::DiagnoseArgs g;
  g.backend = "nccl";
  g.gpus = 2;
  g.test_shared_gpu = 2;
  g.latency_size = "1K";
  EXPECT_EQ(to_json(diagnose::resolve_diagnose_plan(g, true, true)).dump(), kDiagnoseShared);
}

}  // namespace
}  // namespace cctune::app
