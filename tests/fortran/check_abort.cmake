# SPDX-License-Identifier: BSD-3-Clause
# check_abort.cmake: run an MPI job that must abort, and check how it ends.
#
#   cmake -DCMD="mpiexec|-n|2|fprog_abort|put" -DEXPECT=<regex> [-DLIMIT=<seconds>]
#         -P check_abort.cmake
#
# Passes when the whole job ends within LIMIT seconds (default 40; a unit left waiting
# would make it run into the limit), with a non-zero exit status, and its output (stdout
# and stderr) matches EXPECT.
if(NOT CMD OR NOT DEFINED EXPECT)
  message(FATAL_ERROR "check_abort.cmake: CMD and EXPECT are required")
endif()
string(REPLACE "|" ";" CMD "${CMD}")
if(NOT LIMIT)
  set(LIMIT 40)
endif()
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${CMD}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${LIMIT})
string(TIMESTAMP t1 "%s")
math(EXPR dt "${t1} - ${t0}")
set(all "${out}\n${err}")
message("---- job output (exit: ${rc}, ${dt} s) ----\n${all}\n----")
if(rc MATCHES "timeout|terminated")
  message(FATAL_ERROR "the job did not end within ${LIMIT} s (a unit was left waiting?)")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "the job exited with status 0; an abort must give a non-zero status")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not match: ${EXPECT}")
endif()
message("ok: non-zero exit (${rc}) after ${dt} s, message found")
