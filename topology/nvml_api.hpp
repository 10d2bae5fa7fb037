#pragma once
// Our own declarations of the NVML ABI subset cctune uses (no nvml.h needed).
// Layouts and constants are NVML's stable ABI; versioned entry points are named as exported.
namespace cctune::topo::nvml {

using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using Device = struct DeviceOpaque*;

inline constexpr Return success = 0;
inline constexpr unsigned max_nvlinks = 18;  // NVML_NVLINK_MAX_LINKS

struct PciInfo {               // nvmlPciInfo_t (as filled by the _v3 / _v2 entry points)
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;
  unsigned pciSubSystemId;
  char busId[32];
};

struct Memory {                // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

union Value {                  // nvmlValue_t
  double dVal;
  unsigned uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
};

struct FieldValue {            // nvmlFieldValue_t
  unsigned fieldId;
  unsigned scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  Return nvmlReturn;
  Value value;
};

inline constexpr unsigned field_nvlink_speed_mbps_common = 90;  // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON
inline constexpr int value_type_unsigned_int = 1;

// nvmlIntNvLinkDeviceType_t
inline constexpr int nvlink_remote_gpu = 0;
inline constexpr int nvlink_remote_ibmnpu = 1;
inline constexpr int nvlink_remote_switch = 2;

// nvmlDeviceArchitecture_t
inline constexpr unsigned arch_volta = 5, arch_ampere = 7, arch_hopper = 9, arch_blackwell = 10;

}  // namespace cctune::topo::nvml
