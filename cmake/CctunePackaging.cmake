# CPack: a .deb for Debian/Ubuntu hosts (prefix /usr) and a .tar.gz of the same relocatable
# tree (unpack anywhere). tools/package.sh builds both.
set(CPACK_PACKAGE_NAME cctune)
set(CPACK_PACKAGE_VENDOR "cctune")
set(CPACK_PACKAGE_CONTACT "cctune maintainers <cctune@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure and tune NCCL and MPI collectives on GPU clusters")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_FILE_NAME "cctune-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_LICENSE "BSD-3-Clause")
set(CPACK_STRIP_FILES ON)
if(NOT CPACK_GENERATOR)
  set(CPACK_GENERATOR "DEB;TGZ")
endif()
# The tarball unpacks into one folder named like the package: cctune-0.1.0-Linux-x86_64/bin/cctune.
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)

set(CPACK_DEBIAN_PACKAGE_NAME cctune)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The .deb installs under /usr (the DEB generator's default prefix); the tarball holds the bare tree.
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "measure and tune NCCL and MPI collectives on GPU clusters\n\
 cctune sweeps AllReduce, AllGather and ReduceScatter over sizes and NCCL\n\
 configurations, probes the network (ibverbs, TCP), and writes results, an\n\
 HTML report and a tuning profile with an NCCL tuner plugin.")
# Named here rather than computed by CPack's dpkg-shlibdeps run, which stops at libnccl.so.2
# when NCCL comes from a CUDA tarball (no package owns it). The versions are what
# dpkg-shlibdeps gives for bin/cctune and the two libraries on Debian 12; NCCL and the CUDA
# driver, which only the worker module needs, are recommended: the MPI backend runs without
# them. tests/install/deb_package_test.sh checks that every NEEDED library comes from a
# package named here. openmpi-bin: mpirun; ibverbs-providers: the NIC drivers libibverbs loads.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libc6 (>= 2.36), libgcc-s1 (>= 3.0), libstdc++6 (>= 11), libopenmpi3 (>= 4.1.4), openmpi-bin, libhwloc15 (>= 2.9.0), libibverbs1 (>= 34), ibverbs-providers")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libnccl2, libcuda1 | cuda-drivers")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, python3")

include(CPack)
