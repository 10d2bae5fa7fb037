# FindNCCL: NCCL's header and library, as the IMPORTED target NCCL::nccl.
#
# Looks in NCCL_ROOT / $ENV{NCCL_HOME} / the CUDA toolkit's folders / /usr/local/cuda. Sets
# NCCL_FOUND, NCCL_VERSION (MAJOR.MINOR.PATCH read from nccl.h), NCCL_INCLUDE_DIR and
# NCCL_LIBRARY, and honours find_package(NCCL <version>) through
# find_package_handle_standard_args.
find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY nccl
  HINTS ${NCCL_ROOT} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda
  PATH_SUFFIXES lib64 lib)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_defines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${_part} +([0-9]+).*" "\\1" NCCL_VERSION_${_part} "${_nccl_defines}")
  endforeach()
  set(NCCL_VERSION "${NCCL_VERSION_MAJOR}.${NCCL_VERSION_MINOR}.${NCCL_VERSION_PATCH}")
  unset(_nccl_defines)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND)
  include(${CMAKE_CURRENT_LIST_DIR}/CctuneImportedLibrary.cmake)
  cctune_imported_library(NCCL::nccl "${NCCL_LIBRARY}" "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
