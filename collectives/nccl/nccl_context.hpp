#pragma once
// What the backend and the workers' RankComm share inside one worker: the device, the
// communicator and two streams (timed collectives; control traffic off the timed path).
// Shared ownership, so the module can hand out the backend and keep the comm.
#include <nccl.h>

#include "collectives/nccl/cuda_resources.hpp"
#include "collectives/nccl/nccl_dtype_support.hpp"
#include "core/collective.hpp"

namespace cctune::nccl_detail {

struct NcclContext {
  int device = 0;
  int rank = 0;
  int nranks = 1;
  NcclDtypeSupport dtypes;  // NCCL versions and this GPU's compute capability
  CudaStream stream;      // the measured collectives
  CudaStream ctl_stream;  // RankComm traffic between batches
  NcclComm comm;          // declared last: destroyed first, while the streams still exist

  ncclComm_t nccl() const noexcept { return comm.get(); }
};

ncclDataType_t nccl_dtype(DType t);
ncclRedOp_t nccl_op(ReduceOp op);

}  // namespace cctune::nccl_detail
