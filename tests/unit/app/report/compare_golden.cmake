# Runs `cctune compare` on the three MPI fixtures (relative names, as the golden file
# shows them) and compares standard output with compare_golden.txt byte for byte.
execute_process(COMMAND ${CCTUNE} compare mpi_shm.json mpi_tcp.json mpi_np4.json --labels shm,tcp,np4
  WORKING_DIRECTORY ${FIXTURES} OUTPUT_FILE ${OUT} ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cctune compare exited with ${rc}: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${FIXTURES}/compare_golden.txt RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  execute_process(COMMAND diff -u ${FIXTURES}/compare_golden.txt ${OUT})
  message(FATAL_ERROR "cctune compare output differs from ${FIXTURES}/compare_golden.txt (diff above)")
endif()
