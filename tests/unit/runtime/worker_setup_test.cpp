#include <gtest/gtest.h>

#include "runtime/worker_setup.hpp"

namespace cctune {
namespace {

TEST(NcclBufferBytes, LargestSendAndReceiveOverCollectivesAndSizes) {
  const auto need = nccl_buffer_bytes({Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter},
                                      {1024, 1 << 20}, DType::Float32, 8);
  // allreduce: 1 MiB each way; allgather: 128 KiB in, 1 MiB out; reducescatter: 1 MiB in.
  EXPECT_EQ(need.send, 1u << 20);
  EXPECT_EQ(need.recv, 1u << 20);
  const auto ag = nccl_buffer_bytes({Collective::AllGather}, {1 << 20}, DType::Float32, 8);
  EXPECT_EQ(ag.send, (1u << 20) / 8);
  EXPECT_EQ(ag.recv, 1u << 20);
}

}  // namespace
}  // namespace cctune
