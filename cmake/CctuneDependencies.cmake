# Every dependency is found, never downloaded: tools/setup.sh installs the Debian packages.
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)  # linked header-only (fmt::fmt-header-only): binaries built here run on GPU hosts without libfmt
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
find_package(IBVerbs REQUIRED)  # cmake/FindIBVerbs.cmake: IBVerbs::ibverbs

set(CCTUNE_HAVE_NCCL OFF)
if(CCTUNE_WITH_CUDA)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  find_package(NCCL QUIET)  # cmake/FindNCCL.cmake: NCCL::nccl, NCCL_VERSION from nccl.h
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND NCCL_FOUND)
    enable_language(CUDA)
    set(CMAKE_CUDA_ARCHITECTURES ${CCTUNE_CUDA_ARCHITECTURES})
    set(CCTUNE_HAVE_NCCL ON)
    message(STATUS "cctune: NCCL backend enabled (NCCL ${NCCL_VERSION} at ${NCCL_LIBRARY}, CUDA ${CUDAToolkit_VERSION})")
    # The header cctune builds against bounds what the worker module can call; the NCCL
    # found at run time is checked again (cctune --version, the version check).
    if(NCCL_VERSION VERSION_LESS 2.24)
      message(WARNING "cctune: NCCL ${NCCL_VERSION} < 2.24: the fp8 data types (e4m3, e5m2) will not be measured; "
                      "point NCCL_HOME at NCCL 2.24 or newer to build with them")
    endif()
  else()
    message(STATUS "cctune: NCCL backend NOT built: CUDA toolkit (nvcc) or NCCL (nccl.h, libnccl) not found; "
                   "set CUDAToolkit_ROOT or NCCL_HOME to enable it. The MPI backend is built.")
  endif()
else()
  message(STATUS "cctune: NCCL backend NOT built: CCTUNE_WITH_CUDA=OFF")
endif()
