# Installs the build tree into a scratch prefix, then configures, builds and runs the
# consumer project against it.
set(prefix ${KSPD_BINARY_DIR}/consumer-test/prefix)
set(build ${KSPD_BINARY_DIR}/consumer-test/build)
file(REMOVE_RECURSE ${KSPD_BINARY_DIR}/consumer-test)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${KSPD_BINARY_DIR} --prefix ${prefix} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${KSPD_SOURCE_DIR}/unit_tests/consumer -B ${build}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
  -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR} -DCMAKE_BUILD_TYPE=Release
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configure of the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "build of the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${build}/consumer RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()
