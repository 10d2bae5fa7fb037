#include "collectives/nccl/buffer_registration.hpp"

#include <string>
#include <utility>

#include "collectives/nccl/nccl_native.hpp"
#include "core/nccl_settings.hpp"
#include "core/units.hpp"

namespace cctune::nccl_detail {

RegisterCalls find_register_calls(int nccl_version_code) {
  RegisterCalls calls;
  calls.register_buffer = reinterpret_cast<RegisterCalls::RegisterFn>(loaded_nccl_symbol("ncclCommRegister"));
  calls.deregister_buffer = reinterpret_cast<RegisterCalls::DeregisterFn>(loaded_nccl_symbol("ncclCommDeregister"));
  if (calls.register_buffer && calls.deregister_buffer) return calls;
  throw EnvironmentError("ncclCommRegister is absent from the loaded NCCL " + nccl_version_text(nccl_version_code) +
                             " (NCCL 2.19 added it), so " + std::string(kRegisterHookVariable) + "=1 cannot register the buffers",
                         "use NCCL 2.19 or newer, or leave " + std::string(kRegisterHookVariable) + " out of this group");
}

BufferRegistration::BufferRegistration(const NcclComm& comm, const RegisterCalls& calls, void* buffer, std::size_t bytes,
                                       const char* what) {
  const std::string call = "ncclCommRegister(" + std::string(what) + " buffer, " + format_size(bytes) + ")";
  void* handle = nullptr;
  check_nccl(calls.register_buffer(comm.get(), buffer, bytes, &handle), comm.get(), call.c_str(), __FILE__, __LINE__);
  // NCCL 2.28's ncclCommRegister succeeds with a null handle when NCCL_LOCAL_REGISTER=0
  // (src/register/register.cc): nothing would be measured, so say so.
  if (!handle)
    throw RuntimeFailure(call + " returned " + ncclGetErrorString(ncclSuccess) +
                             " but no handle: NCCL's local registration is off (NCCL_LOCAL_REGISTER=0), so the buffers stay unregistered",
                         "unset NCCL_LOCAL_REGISTER (NCCL's default, 1, honours registrations), or leave " +
                             std::string(kRegisterHookVariable) + " out of this group");
  comm_ = &comm;
  deregister_ = calls.deregister_buffer;
  handle_ = handle;
}

BufferRegistration::BufferRegistration(BufferRegistration&& o) noexcept
    : comm_(std::exchange(o.comm_, nullptr)),
      deregister_(std::exchange(o.deregister_, nullptr)),
      handle_(std::exchange(o.handle_, nullptr)) {}

BufferRegistration& BufferRegistration::operator=(BufferRegistration&& o) noexcept {
  if (this != &o) {
    release();
    comm_ = std::exchange(o.comm_, nullptr);
    deregister_ = std::exchange(o.deregister_, nullptr);
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

void BufferRegistration::release() noexcept {
  if (handle_ && comm_ && comm_->get() && !comm_->failed() && deregister_) (void)deregister_(comm_->get(), handle_);
  handle_ = nullptr;
  comm_ = nullptr;
}

}  // namespace cctune::nccl_detail
