# SPDX-License-Identifier: BSD-3-Clause
# DartMpiTest.cmake: register MPI programs with CTest, once per unit count and
# node-emulation setting.
#
#   dart_add_mpi_test(NAME <name> COMMAND <target-or-exe> [ARGS ...]
#                     [UNITS 1 2 3 4] [UPN none 1 2] [TIMEOUT <sec>] [LABELS ...]
#                     [FAKE_HOSTS] [ENV <NAME=VALUE>...] [ASAN_OPTIONS <opt>...])
#
# One test per (units, upn) pair (DART_TEST_OVERSUBSCRIBED=REDUCED, MPICH's default,
# leaves out the pairs of more units than cores that a smaller count covers; see below;
# a upn of at least the unit count is one node, the shape of upn none, and is left out
# when none is in UPN):
#   <name>.n<units>            (UPN none or "")
#   <name>.n<units>.upn<k>     DART_UNITS_PER_NODE=<k> on every rank
#   <name>.n4.fakehosts        FAKE_HOSTS, MPICH only: two emulated hosts of 2 ranks each
# and, unless NO_PROGRESS, the progress placements (DART_PROGRESS_PER_NODE=1, label
# `progress`; the job gets launch.py's job_processes(units, upn, 1) processes):
#   <name>.n2.prog1            2 in UNITS: one node, 2 units + 1 progress process
#   <name>.n2.upn1.prog1       2 in UNITS: DART_UNITS_PER_NODE=1, 2 x (1 unit + 1 progress)
#   <name>.n3.upn2.prog1       3 in UNITS: DART_UNITS_PER_NODE=2, (2+1) + (1+1) processes
# whatever UPN says (the placements are fixed). DART_TEST_PROGRESS (cache) selects them:
# ALL (default), REDUCED (.n2.upn1.prog1 for every test, the other two only for the
# tests whose name matches a regex of DART_TEST_PROGRESS_FULL: the transfer, atomic, lock
# and notification tests and the progress tests) or OFF (the default of a sanitizer build).
# The progress variants carry the labels <flavor>, progress, prog1 and the test's own,
# not n<units>/upn<k>: selections by those (e.g. the ASan step's -L ^n2$) stay as they were.
# PROCESSORS (what a test reserves under ctest -j) is min(processes, cores of this
# machine): dart_test_processors(<out> <processes>) gives it to tests registered otherwise.
# Command: ${MPIEXEC_EXECUTABLE} <flavor flags> [<env flags>] -n <units> <exe> <args>, the
# flavor's flags and environment as python/dartpy/launch.py gives them (see below).
# Labels added automatically: <flavor>, n<units>, upn<k>, fakehosts.
# ENV NAME=VALUE...: set on every rank of every run of the test.
# In a sanitizer build (DART_SANITIZE, cmake/DartSanitize.cmake) every rank gets the
# sanitizer's options (DART_SANITIZER_ENV); ASAN_OPTIONS <opt>... appends options for this
# test to ASAN_OPTIONS in an ASan build and is ignored otherwise.
# Needs DART_MPI_FLAVOR (mpich|openmpi) and MPIEXEC_EXECUTABLE (both set at top level).
#
#   dart_add_mpi_test_from_source(<target> <source> COMMENT <// or !> LABEL <label>
#                                 UNITS <defaults> UPN <defaults> TIMEOUT <default>)
#
# dart_add_mpi_test for <target> with the defaults given, overridden by the first line
# of <source> that reads `<COMMENT> dart-test: ...`, e.g. `// dart-test: UNITS 1 2 UPN
# none TIMEOUT 300 LABELS large`. Keywords: UNITS <n>..., UPN <none|k>..., TIMEOUT <sec>,
# LABELS <l>..., ARGS <a>..., ENV <NAME=VALUE>..., ASAN_OPTIONS <opt>..., FAKE_HOSTS,
# NO_FAKE_HOSTS, NO_PROGRESS, PROGRESS_ONLY. The fake-hosts run is added when
# 4 is among UNITS (or FAKE_HOSTS is given) unless NO_FAKE_HOSTS is. NO_PROGRESS leaves
# out the progress variants: only for a test that cannot run with progress processes by
# nature, with a comment saying why next to the line. PROGRESS_ONLY registers only the
# progress variants, all three placements whatever DART_TEST_PROGRESS says (tests of the
# progress processes themselves, which fail without them by design).

# How to launch: the flags and environment of each MPI are known in one place, the
# Python module python/dartpy/launch.py (also used by the Python tests, the %%dartrun
# magic, benchmarks/run and scripts/demo.sh). At the first test registration CMake runs
# `python3 launch.py --print-cmake --mpi <flavor> --mpiexec <path>` once and includes what
# it prints (DART_LAUNCH_FLAGS, DART_LAUNCH_ENV, DART_LAUNCH_FORWARD, DART_LAUNCH_HOSTS;
# kept in <build>/DartLaunch.cmake, regenerated when launch.py changes). So every test is
# a plain mpiexec command line (`ctest -N -V` shows it, it can be copied into a shell),
# costs no Python start, and ends by the test's TIMEOUT. Why each flag is there:
# launch.py's documentation.
set(_DART_LAUNCH_PY "${CMAKE_CURRENT_LIST_DIR}/../python/dartpy/launch.py")
get_filename_component(_DART_LAUNCH_PY "${_DART_LAUNCH_PY}" ABSOLUTE)

# Cores of this machine: a test never reserves more (ctest -j<N> PROCESSORS).
cmake_host_system_information(RESULT DART_HOST_CORES QUERY NUMBER_OF_LOGICAL_CORES)
if(NOT DART_HOST_CORES OR DART_HOST_CORES LESS 1)
  set(DART_HOST_CORES 1)
endif()

# Which progress variants dart_add_mpi_test registers (see the top of this file).
if(DART_SANITIZE)
  set(_dart_progress_default OFF)  # the sanitizer steps keep their time budget
else()
  # REDUCED by default: the full set costs more than the CI budget leaves (README).
  set(_dart_progress_default REDUCED)
endif()
set(DART_TEST_PROGRESS "${_dart_progress_default}" CACHE STRING
    "Progress-process test variants: ALL, REDUCED (see DART_TEST_PROGRESS_FULL) or OFF")
set_property(CACHE DART_TEST_PROGRESS PROPERTY STRINGS ALL REDUCED OFF)
set(DART_TEST_PROGRESS_FULL
    "^f?test_(onesided|atomics?|lock|notify|globmem)$;^prog_progress" CACHE STRING
    "With DART_TEST_PROGRESS=REDUCED: regexes of the tests (names before .n<units>) that keep all three progress placements")

# Which oversubscribed jobs (more units than cores) dart_add_mpi_test registers. ALL: every
# (units, upn) pair. REDUCED: a job of more units than cores with upn none (one node) or 1
# (every unit a node of its own) is left out when UNITS holds a smaller unit count that is
# oversubscribed too, whose job has the same shape (on 2 cores: .n4 and .n4.upn1 go,
# .n3, .n3.upn1 and .n3.upn2 stay), and .n4.upn2 where the fake-hosts run of the same
# shape (two nodes of two units, MPICH only) is registered. The default is REDUCED under MPICH,
# whose blocking waits busy-poll: an oversubscribed job costs 10-40 times what it costs
# under Open MPI (docs/mpi-notes.md), and the full set takes longer than the CI budget
# leaves. ALL elsewhere.
if(DART_MPI_FLAVOR STREQUAL "mpich")
  set(_dart_oversub_default REDUCED)
else()
  set(_dart_oversub_default ALL)
endif()
set(DART_TEST_OVERSUBSCRIBED "${_dart_oversub_default}" CACHE STRING
    "Oversubscribed test jobs: ALL or REDUCED (see cmake/DartMpiTest.cmake)")
set_property(CACHE DART_TEST_OVERSUBSCRIBED PROPERTY STRINGS ALL REDUCED)

# <out> = the PROCESSORS a test of <units> processes reserves: min(units, cores).
function(dart_test_processors out units)
  if(units GREATER DART_HOST_CORES)
    set(${out} ${DART_HOST_CORES} PARENT_SCOPE)
  else()
    set(${out} ${units} PARENT_SCOPE)
  endif()
endfunction()

# Defines DART_LAUNCH_* in the caller's scope (asks launch.py once per configure run).
macro(_dart_launch_facts)
  get_property(_dart_launch_file GLOBAL PROPERTY DART_LAUNCH_FILE)
  if(NOT _dart_launch_file)
    find_package(Python3 COMPONENTS Interpreter)
    if(NOT Python3_Interpreter_FOUND)
      message(FATAL_ERROR "dart_add_mpi_test: python3 is needed to run ${_DART_LAUNCH_PY}")
    endif()
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" "${_DART_LAUNCH_PY}" --print-cmake
              --mpi "${DART_MPI_FLAVOR}" --mpiexec "${MPIEXEC_EXECUTABLE}"
      OUTPUT_VARIABLE _dart_launch_out ERROR_VARIABLE _dart_launch_err
      RESULT_VARIABLE _dart_launch_rc TIMEOUT 60)
    if(NOT _dart_launch_rc EQUAL 0)
      message(FATAL_ERROR "${_DART_LAUNCH_PY} --print-cmake failed (${_dart_launch_rc}):\n"
                          "${_dart_launch_err}")
    endif()
    set(_dart_launch_file "${CMAKE_BINARY_DIR}/DartLaunch.cmake")
    file(WRITE "${_dart_launch_file}" "${_dart_launch_out}")
    set_property(GLOBAL PROPERTY DART_LAUNCH_FILE "${_dart_launch_file}")
    set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 "${_DART_LAUNCH_PY}")
  endif()
  include("${_dart_launch_file}")
endmacro()

# <out> = processes of a job of <units> units, DART_UNITS_PER_NODE <upn> (none: unset)
# and <k> progress processes per node: launch.py's job_processes, asked once per shape.
function(dart_job_processes out units upn k)
  set(key "DART_JOB_PROCESSES_${units}_${upn}_${k}")
  get_property(n GLOBAL PROPERTY ${key})
  if(NOT n)
    find_package(Python3 COMPONENTS Interpreter REQUIRED)
    execute_process(
      COMMAND "${Python3_EXECUTABLE}" "${_DART_LAUNCH_PY}" --processes-for ${units} ${upn} ${k}
      OUTPUT_VARIABLE n ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0 OR NOT n MATCHES "^[0-9]+$")
      message(FATAL_ERROR "${_DART_LAUNCH_PY} --processes-for ${units} ${upn} ${k} "
                          "failed (${rc}): ${n} ${err}")
    endif()
    set_property(GLOBAL PROPERTY ${key} ${n})
  endif()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# Flags that set NAME=VALUE on every rank (DART_LAUNCH_FORWARD with NAME and VALUE).
function(_dart_mpi_env_flag out name value)
  _dart_launch_facts()
  string(REPLACE "@NAME@" "${name}" flag "${DART_LAUNCH_FORWARD}")
  string(REPLACE "@VALUE@" "${value}" flag "${flag}")
  set(${out} ${flag} PARENT_SCOPE)
endfunction()

# The flavor's flags (before -n) and environment (NAME=VALUE list for the ENVIRONMENT
# test property), with the sanitizer's options of a sanitizer build on every rank;
# <asan_extra>: options appended to ASAN_OPTIONS (ASan build only, may be empty).
function(_dart_mpi_launcher_flags out_flags out_env)
  cmake_parse_arguments(PARSE_ARGV 2 L "" "" "ASAN_OPTIONS")
  _dart_launch_facts()
  set(flags ${DART_LAUNCH_FLAGS})
  set(env ${DART_LAUNCH_ENV})
  foreach(var IN LISTS DART_SANITIZER_ENV)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${var}")
    set(name "${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    if(name STREQUAL "ASAN_OPTIONS")
      foreach(opt IN LISTS L_ASAN_OPTIONS)
        string(APPEND value ":${opt}")
      endforeach()
    endif()
    _dart_mpi_env_flag(flag ${name} "${value}")
    list(APPEND flags ${flag})
    list(APPEND env "${name}=${value}")
  endforeach()
  set(${out_flags} ${flags} PARENT_SCOPE)
  set(${out_env} ${env} PARENT_SCOPE)
endfunction()

function(dart_add_mpi_test)
  # PARSE_ARGV keeps empty list elements, so UPN "" 1 2 works as documented.
  cmake_parse_arguments(PARSE_ARGV 0 ARG "FAKE_HOSTS;NO_PROGRESS;PROGRESS_ONLY" "NAME;COMMAND;TIMEOUT"
                        "ARGS;UNITS;UPN;LABELS;ENV;ASAN_OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dart_add_mpi_test: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME OR NOT ARG_COMMAND)
    message(FATAL_ERROR "dart_add_mpi_test: NAME and COMMAND are required")
  endif()
  if(NOT MPIEXEC_EXECUTABLE)
    message(FATAL_ERROR "dart_add_mpi_test: MPIEXEC_EXECUTABLE is not set")
  endif()
  if(NOT DEFINED ARG_UNITS OR "${ARG_UNITS}" STREQUAL "")
    set(ARG_UNITS 1 2 3 4)
  endif()
  if(NOT DEFINED ARG_UPN)
    set(ARG_UPN none)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()

  if(TARGET ${ARG_COMMAND})
    set(exe "$<TARGET_FILE:${ARG_COMMAND}>")
  else()
    set(exe "${ARG_COMMAND}")
  endif()

  _dart_launch_facts()
  _dart_mpi_launcher_flags(launch_flags launch_env ASAN_OPTIONS ${ARG_ASAN_OPTIONS})
  foreach(var IN LISTS ARG_ENV)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${var}")
    _dart_mpi_env_flag(flag "${CMAKE_MATCH_1}" "${CMAKE_MATCH_2}")
    list(APPEND launch_flags ${flag})
    list(APPEND launch_env "${var}")
  endforeach()
  set(np_flag "${MPIEXEC_NUMPROC_FLAG}")
  if(NOT np_flag)
    set(np_flag -n)
  endif()

  # foreach(IN LISTS) visits empty elements too; an empty list still means "no upn".
  set(upn_list "")
  foreach(upn IN LISTS ARG_UPN)
    if(upn STREQUAL "" OR upn STREQUAL "none")
      list(APPEND upn_list none)
    else()
      list(APPEND upn_list ${upn})
    endif()
  endforeach()
  if(NOT upn_list)
    set(upn_list none)
  endif()
  list(REMOVE_DUPLICATES upn_list)

  # The jobs, units:upn:k (k progress processes per node, 0: none): every (units, upn)
  # pair, then the progress placements with DART_PROGRESS_PER_NODE=1.
  set(jobs "")
  if(NOT ARG_PROGRESS_ONLY)
    foreach(units IN LISTS ARG_UNITS)
      # DART_TEST_OVERSUBSCRIBED=REDUCED: a smaller oversubscribed count of UNITS covers
      # the one-node and the node-per-unit shapes of this one.
      set(covered FALSE)
      if(DART_TEST_OVERSUBSCRIBED STREQUAL "REDUCED" AND units GREATER DART_HOST_CORES)
        foreach(smaller IN LISTS ARG_UNITS)
          if(smaller GREATER DART_HOST_CORES AND smaller LESS units)
            set(covered TRUE)
          endif()
        endforeach()
      endif()
      foreach(upn IN LISTS upn_list)
        if(covered AND (upn STREQUAL "none" OR upn EQUAL 1))
          continue()
        endif()
        # DART_UNITS_PER_NODE >= units makes one node of them all: on one machine the
        # shape of the job without emulation, which runs anyway (.n1.upn1, .n1.upn2 and
        # .n2.upn2 would test it twice).
        if(NOT upn STREQUAL "none" AND NOT upn LESS units AND "none" IN_LIST upn_list)
          continue()
        endif()
        # REDUCED: the fake-hosts run (below) has the shape of .n4.upn2, two nodes of two
        # units (DART takes the same paths; only MPI's own transport between the nodes
        # differs), so .n4.upn2 is left out where that run is registered.
        if(DART_TEST_OVERSUBSCRIBED STREQUAL "REDUCED" AND ARG_FAKE_HOSTS AND DART_LAUNCH_HOSTS
           AND units EQUAL 4 AND upn EQUAL 2)
          continue()
        endif()
        list(APPEND jobs ${units}:${upn}:0)
      endforeach()
    endforeach()
  endif()
  if(NOT ARG_NO_PROGRESS AND NOT DART_TEST_PROGRESS STREQUAL "OFF")
    set(full TRUE)
    if(DART_TEST_PROGRESS STREQUAL "REDUCED" AND NOT ARG_PROGRESS_ONLY)
      set(full FALSE)
      foreach(re IN LISTS DART_TEST_PROGRESS_FULL)
        if(ARG_NAME MATCHES "${re}")
          set(full TRUE)
        endif()
      endforeach()
    endif()
    if(2 IN_LIST ARG_UNITS)
      if(full)
        list(APPEND jobs 2:none:1)
      endif()
      list(APPEND jobs 2:1:1)
    endif()
    if(3 IN_LIST ARG_UNITS AND full)
      list(APPEND jobs 3:2:1)
    endif()
  endif()

  foreach(job IN LISTS jobs)
    string(REPLACE ":" ";" job "${job}")
    list(GET job 0 units)
    list(GET job 1 upn)
    list(GET job 2 k)
    set(name "${ARG_NAME}.n${units}")
    set(env_flags "")
    set(env ${launch_env})
    set(nprocs ${units})
    if(k EQUAL 0)
      set(labels ${DART_MPI_FLAVOR} n${units} ${ARG_LABELS})
    else()
      set(labels ${DART_MPI_FLAVOR} progress prog${k} ${ARG_LABELS})
    endif()
    if(NOT upn STREQUAL "none")
      string(APPEND name ".upn${upn}")
      _dart_mpi_env_flag(flag DART_UNITS_PER_NODE ${upn})
      list(APPEND env_flags ${flag})
      list(APPEND env DART_UNITS_PER_NODE=${upn})
      if(k EQUAL 0)
        list(APPEND labels upn${upn})
      endif()
    endif()
    if(k GREATER 0)
      string(APPEND name ".prog${k}")
      _dart_mpi_env_flag(flag DART_PROGRESS_PER_NODE ${k})
      list(APPEND env_flags ${flag})
      list(APPEND env DART_PROGRESS_PER_NODE=${k})
      dart_job_processes(nprocs ${units} ${upn} ${k})
    endif()
    # A job of more processes than cores reserves all cores (and runs oversubscribed).
    dart_test_processors(procs ${nprocs})
    add_test(NAME ${name}
      COMMAND "${MPIEXEC_EXECUTABLE}" ${launch_flags} ${env_flags}
              ${np_flag} ${nprocs} ${MPIEXEC_PREFLAGS}
              "${exe}" ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
    set_tests_properties(${name} PROPERTIES
      PROCESSORS ${procs} TIMEOUT ${ARG_TIMEOUT} LABELS "${labels}")
    if(env)
      set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
    endif()
  endforeach()

  # Two emulated hosts on one machine, nodeA with ranks 0,1 and nodeB with ranks 2,3:
  # MPI itself sees two nodes, so MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) yields
  # {0,1} {2,3} and traffic between them takes the network path. Only where the MPI can
  # do it alone (MPICH's hydra: DART_LAUNCH_HOSTS not empty); Open MPI would need fake
  # host names in separate UTS namespaces.
  if(ARG_FAKE_HOSTS AND DART_LAUNCH_HOSTS)
    set(name "${ARG_NAME}.n4.fakehosts")
    string(REPLACE "@HOSTS@" "nodeA:2,nodeB:2" hosts_flags "${DART_LAUNCH_HOSTS}")
    dart_test_processors(procs 4)
    add_test(NAME ${name}
      COMMAND "${MPIEXEC_EXECUTABLE}" ${launch_flags} ${hosts_flags}
              ${np_flag} 4 ${MPIEXEC_PREFLAGS}
              "${exe}" ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
    set_tests_properties(${name} PROPERTIES
      PROCESSORS ${procs} TIMEOUT ${ARG_TIMEOUT}
      LABELS "${DART_MPI_FLAVOR};n4;fakehosts;${ARG_LABELS}")
    if(launch_env)
      set_tests_properties(${name} PROPERTIES ENVIRONMENT "${launch_env}")
    endif()
  endif()
endfunction()

function(dart_add_mpi_test_from_source tgt src)
  cmake_parse_arguments(D "" "COMMENT;LABEL;TIMEOUT" "UNITS;UPN" ${ARGN})
  set(asan "")  # ASAN_OPTIONS and ENV, passed on as they are
  set(units ${D_UNITS})
  set(upn ${D_UPN})
  set(timeout ${D_TIMEOUT})
  set(labels ${D_LABEL})
  set(args "")
  set(fake "")
  set(noprog "")
  set(marker "^[ \t]*${D_COMMENT}[ \t]*dart-test:")
  file(STRINGS "${src}" spec REGEX "${marker}")
  if(spec)
    list(GET spec 0 spec)  # the first such line counts
    string(REGEX REPLACE "${marker}[ \t]*" "" spec "${spec}")
    separate_arguments(spec UNIX_COMMAND "${spec}")
    cmake_parse_arguments(O "FAKE_HOSTS;NO_FAKE_HOSTS;NO_PROGRESS;PROGRESS_ONLY" "TIMEOUT"
                          "UNITS;UPN;LABELS;ARGS;ENV;ASAN_OPTIONS" ${spec})
    if(O_UNPARSED_ARGUMENTS)
      message(FATAL_ERROR
              "${src}: bad `${D_COMMENT} dart-test:` line, unknown: ${O_UNPARSED_ARGUMENTS}")
    endif()
    if(O_UNITS)
      set(units ${O_UNITS})
    endif()
    if(O_UPN)
      set(upn ${O_UPN})
    endif()
    if(O_TIMEOUT)
      set(timeout ${O_TIMEOUT})
    endif()
    if(O_LABELS)
      list(APPEND labels ${O_LABELS})
    endif()
    if(O_ARGS)
      set(args ${O_ARGS})
    endif()
    if(O_ASAN_OPTIONS)
      set(asan ASAN_OPTIONS ${O_ASAN_OPTIONS})
    endif()
    if(O_ENV)
      list(APPEND asan ENV ${O_ENV})
    endif()
    if(O_FAKE_HOSTS)
      set(fake FAKE_HOSTS)
    endif()
    if(O_NO_FAKE_HOSTS)
      set(fake NO)
    endif()
    if(O_NO_PROGRESS)
      set(noprog NO_PROGRESS)
    endif()
    if(O_PROGRESS_ONLY)
      set(noprog PROGRESS_ONLY)
    endif()
  endif()
  if(fake STREQUAL "")
    if(4 IN_LIST units)
      set(fake FAKE_HOSTS)
    endif()
  elseif(fake STREQUAL "NO")
    set(fake "")
  endif()
  dart_add_mpi_test(NAME ${tgt} COMMAND ${tgt} ARGS ${args}
                    UNITS ${units} UPN ${upn} TIMEOUT ${timeout} LABELS ${labels} ${fake}
                    ${noprog} ${asan})
endfunction()
