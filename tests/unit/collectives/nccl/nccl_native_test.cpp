// The run-time lookup of NCCL's native alltoall, gather and scatter in the loaded libnccl (no
// GPU needed: only the library's symbols are read). The build's NCCL decides what must be found.
#include "collectives/nccl/nccl_native.hpp"

#include <gtest/gtest.h>

#include "core/collective_traits.hpp"

using namespace cctune;
using namespace cctune::nccl_detail;

TEST(NcclNative, FindsTheCallsWhereTheLoadedNcclHasThem) {
  int version = 0;
  ASSERT_EQ(ncclGetVersion(&version), ncclSuccess);
  const NativeP2pCalls calls = find_native_p2p_calls();
  const bool want = version >= 22800;  // NCCL 2.28 added them
  EXPECT_EQ(calls.alltoall != nullptr, want) << "NCCL " << version;
  EXPECT_EQ(calls.gather != nullptr, want) << "NCCL " << version;
  EXPECT_EQ(calls.scatter != nullptr, want) << "NCCL " << version;
  for (Collective c : all_collectives()) EXPECT_EQ(calls.has(c), want && has_two_impls(c)) << to_string(c);
}

TEST(NcclNative, AnEmptyLookupHasNothing) {
  const NativeP2pCalls none;
  for (Collective c : all_collectives()) EXPECT_FALSE(none.has(c));
}

TEST(NcclNative, TheAbsentReasonNamesTheCallTheVersionAndTheWayOut) {
  const std::string why = native_absent_reason(Collective::Gather, 22707);
  EXPECT_EQ(why.rfind("ncclGather is absent from the loaded NCCL 2.27.7 (NCCL 2.28 added it)", 0), 0u) << why;
  EXPECT_NE(why.find("--p2p-impl grouped"), std::string::npos) << why;
  EXPECT_NE(native_absent_reason(Collective::AllToAll, 22000).find("ncclAlltoAll"), std::string::npos);
}
