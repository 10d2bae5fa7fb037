# `cmake --install` and CPack: one relocatable tree, the same under any prefix.
#   bin/cctune                      the tool (RPATH $ORIGIN/../lib)
#   lib/libcctune-nccl.so           worker module (when CUDA/NCCL were found at build time)
#   lib/libnccl-tuner-cctune.so     NCCL tuner plugin
#   share/cctune/{spaces,schema}    search spaces and JSON schemas
#   share/cctune/cctune.sbatch      the Slurm job script
#   share/doc/cctune                README, LICENSE and docs
# cctune finds the module, the plugin and the spaces relative to its own executable
# (runtime/module_loader.cpp, tuner/export/outputs.cpp, tuner/space/space.cpp), so the tree
# can be moved or copied to every node as it is. The two libraries' install() rules sit in
# their own CMakeLists (collectives/nccl, tuner/plugin) and also install into lib/.
set(CCTUNE_INSTALL_BINDIR bin)
set(CCTUNE_INSTALL_LIBDIR lib)  # not GNUInstallDirs' lib/<multiarch>: bin/../lib is what cctune looks for
set(CCTUNE_INSTALL_DATADIR share/cctune)
set(CCTUNE_INSTALL_DOCDIR share/doc/cctune)

# What `cmake --install` and the packages need built (tools/package.sh builds only this).
add_custom_target(cctune_installable)
add_dependencies(cctune_installable cctune nccl-tuner-cctune)

install(TARGETS cctune RUNTIME DESTINATION ${CCTUNE_INSTALL_BINDIR})
set_target_properties(cctune PROPERTIES INSTALL_RPATH "$ORIGIN/../${CCTUNE_INSTALL_LIBDIR}")
if(TARGET cctune-nccl)
  add_dependencies(cctune_installable cctune-nccl)
  # $ORIGIN first, then where NCCL was linked from (as in the build tree): a host whose
  # loader does not know that folder (NCCL from a CUDA tarball) still finds it there, and
  # LD_LIBRARY_PATH wins over both (RUNPATH).
  set_target_properties(cctune-nccl PROPERTIES INSTALL_RPATH "$ORIGIN" INSTALL_RPATH_USE_LINK_PATH ON)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/spaces/ DESTINATION ${CCTUNE_INSTALL_DATADIR}/spaces
        FILES_MATCHING PATTERN "*.json")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/schema/ DESTINATION ${CCTUNE_INSTALL_DATADIR}/schema
        FILES_MATCHING PATTERN "*.json")
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/cctune.sbatch DESTINATION ${CCTUNE_INSTALL_DATADIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CCTUNE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CCTUNE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md")
