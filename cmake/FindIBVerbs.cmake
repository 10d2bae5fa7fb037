# FindIBVerbs: rdma-core's libibverbs, as the IMPORTED target IBVerbs::ibverbs.
# Sets IBVerbs_FOUND, IBVERBS_INCLUDE_DIR and IBVERBS_LIBRARY.
find_path(IBVERBS_INCLUDE_DIR infiniband/verbs.h HINTS ${IBVERBS_ROOT} PATH_SUFFIXES include)
find_library(IBVERBS_LIBRARY ibverbs HINTS ${IBVERBS_ROOT} PATH_SUFFIXES lib64 lib)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(IBVerbs REQUIRED_VARS IBVERBS_LIBRARY IBVERBS_INCLUDE_DIR)

if(IBVerbs_FOUND)
  include(${CMAKE_CURRENT_LIST_DIR}/CctuneImportedLibrary.cmake)
  cctune_imported_library(IBVerbs::ibverbs "${IBVERBS_LIBRARY}" "${IBVERBS_INCLUDE_DIR}")
endif()
mark_as_advanced(IBVERBS_INCLUDE_DIR IBVERBS_LIBRARY)
