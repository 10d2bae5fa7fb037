# cctune_imported_library(TARGET LIBRARY INCLUDE_DIR): an IMPORTED target for a library found
# by find_library/find_path (used by the Find modules in this folder); nothing if it exists.
function(cctune_imported_library target library include_dir)
  if(NOT TARGET ${target})
    add_library(${target} UNKNOWN IMPORTED)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${library}" INTERFACE_INCLUDE_DIRECTORIES "${include_dir}")
  endif()
endfunction()
