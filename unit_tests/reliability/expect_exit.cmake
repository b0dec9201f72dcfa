# Runs EXE with ARGS (a ;-list); passes when it exits with CODE and its output matches REGEX.
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL CODE)
  message(FATAL_ERROR "exit status ${rc}, expected ${CODE}\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}'\nstdout: ${out}\nstderr: ${err}")
endif()
message(STATUS "exit ${rc}: ${err}")
