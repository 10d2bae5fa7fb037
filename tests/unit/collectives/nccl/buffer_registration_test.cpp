// Local buffer registration's owner and errors without a GPU (issue 35): ncclCommRegister and
// ncclCommDeregister are stood in for by plain functions; the lookup reads the linked libnccl's
// symbols only. The communicators are never destroyed (NcclComm would ncclCommDestroy them).
#include "collectives/nccl/buffer_registration.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support/thrown.hpp"

using namespace cctune;
using namespace cctune::nccl_detail;

namespace {

int handle_storage = 0;
std::vector<void*> deregistered;
ncclResult_t register_result = ncclSuccess;
bool give_handle = true;

ncclResult_t fake_register(ncclComm_t, void*, size_t, void** handle) {
  *handle = give_handle ? &handle_storage : nullptr;
  return register_result;
}
ncclResult_t fake_deregister(ncclComm_t, void* handle) {
  deregistered.push_back(handle);
  return ncclSuccess;
}

const RegisterCalls kFake{fake_register, fake_deregister};

// A communicator that is never released: the pointer is not NCCL's.
NcclComm& comm_never_destroyed() {
  static int storage = 0;
  static NcclComm* comm = new NcclComm(reinterpret_cast<ncclComm_t>(&storage));
  return *comm;
}

void reset() {
  deregistered.clear();
  register_result = ncclSuccess;
  give_handle = true;
}

}  // namespace

TEST(BufferRegistration, FindsBothCallsInTheLoadedNccl) {
  int version = 0;
  ASSERT_EQ(ncclGetVersion(&version), ncclSuccess);
  if (version < 21900) GTEST_SKIP() << "NCCL " << version << " predates ncclCommRegister";
  const RegisterCalls calls = find_register_calls(version);
  EXPECT_NE(calls.register_buffer, nullptr);
  EXPECT_NE(calls.deregister_buffer, nullptr);
}

TEST(BufferRegistration, DeregistersOnceBeforeItGoes) {
  reset();
  char buffer[64];
  {
    BufferRegistration r(comm_never_destroyed(), kFake, buffer, sizeof buffer, "send");
    BufferRegistration moved = std::move(r);  // the moved-from owner releases nothing
    EXPECT_TRUE(deregistered.empty());
  }
  EXPECT_EQ(deregistered, std::vector<void*>{&handle_storage});
}

TEST(BufferRegistration, NothingIsDeregisteredOnAFailedCommunicator) {
  reset();
  static int storage = 0;
  static NcclComm* failed = new NcclComm(reinterpret_cast<ncclComm_t>(&storage));
  failed->mark_failed();  // never released either: abort would get a pointer that is not NCCL's
  char buffer[64];
  { BufferRegistration r(*failed, kFake, buffer, sizeof buffer, "receive"); }
  EXPECT_TRUE(deregistered.empty());
}

TEST(BufferRegistration, ARefusalNamesTheCallAndNcclsResult) {
  reset();
  register_result = ncclInvalidArgument;
  char buffer[64];
  const std::string m =
      cctune::testing::thrown_description<RuntimeFailure>([&] { BufferRegistration r(NcclComm{}, kFake, buffer, 1 << 20, "send"); });
  EXPECT_NE(m.find("ncclCommRegister(send buffer, 1 MiB) failed: " + std::string(ncclGetErrorString(ncclInvalidArgument))),
            std::string::npos)
      << m;
  EXPECT_TRUE(deregistered.empty());
}

// NCCL 2.28 with NCCL_LOCAL_REGISTER=0: success and no handle, so nothing would be measured.
TEST(BufferRegistration, ANullHandleSaysLocalRegistrationIsOff) {
  reset();
  give_handle = false;
  char buffer[64];
  const std::string m = cctune::testing::thrown_description<RuntimeFailure>(
      [&] { BufferRegistration r(NcclComm{}, kFake, buffer, sizeof buffer, "receive"); });
  EXPECT_NE(m.find("ncclCommRegister(receive buffer, 64 B) returned " + std::string(ncclGetErrorString(ncclSuccess)) + " but no handle"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("NCCL_LOCAL_REGISTER=0"), std::string::npos) << m;
  EXPECT_NE(m.find("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK"), std::string::npos) << m;
  EXPECT_TRUE(deregistered.empty());
}
