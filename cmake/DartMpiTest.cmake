# DartMpiTest.cmake: register MPI programs with CTest, once per unit count and
# node-emulation setting.
#
#   dart_add_mpi_test(NAME <name> COMMAND <target-or-exe> [ARGS ...]
#                     [UNITS 1 2 3 4] [UPN none 1 2] [TIMEOUT <sec>] [LABELS ...]
#                     [FAKE_HOSTS])
#
# One test per (units, upn) pair:
#   <name>.n<units>            (UPN none or "")
#   <name>.n<units>.upn<k>     DART_UNITS_PER_NODE=<k> on every rank
#   <name>.n4.fakehosts        FAKE_HOSTS, MPICH only: two emulated hosts of 2 ranks each
# Command: ${MPIEXEC_EXECUTABLE} <flavor flags> -n <units> <exe> <args>.
# Labels added automatically: <flavor>, n<units>, upn<k>, fakehosts.
# Needs DART_MPI_FLAVOR (mpich|openmpi) and MPIEXEC_EXECUTABLE (both set at top level).
#
#   dart_add_mpi_test_from_source(<target> <source> COMMENT <// or !> LABEL <label>
#                                 UNITS <defaults> UPN <defaults> TIMEOUT <default>)
#
# dart_add_mpi_test for <target> with the defaults given, overridden by the first line
# of <source> that reads `<COMMENT> dart-test: ...`, e.g. `// dart-test: UNITS 1 2 UPN
# none TIMEOUT 300 LABELS large`. Keywords: UNITS <n>..., UPN <none|k>..., TIMEOUT <sec>,
# LABELS <l>..., ARGS <a>..., FAKE_HOSTS, NO_FAKE_HOSTS. The fake-hosts run is added when
# 4 is among UNITS (or FAKE_HOSTS is given) unless NO_FAKE_HOSTS is.

# Launcher flags and environment per MPI flavor.
#  Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM); more ranks than cores need
#  --oversubscribe (also set through the MCA environment variable). Binding is switched off
#  so that two concurrent jobs (ctest -j2) are not pinned onto the same cores.
#  No `--mca btl ...`: it would replace Debian's `btl = ^uct,openib,ofi`
#  (/etc/openmpi/openmpi-mca-params.conf) and let btl ofi carry osc rdma's atomics, which
#  aborts ("fi_fetch_atomic failed ... Function not implemented").
#  MPICH (hydra) needs nothing: it runs as root and oversubscribes without flags.
function(_dart_mpi_launcher_flags out_flags out_env)
  if(DART_MPI_FLAVOR STREQUAL "openmpi")
    set(${out_flags} --oversubscribe --bind-to none PARENT_SCOPE)
    set(${out_env}
      OMPI_ALLOW_RUN_AS_ROOT=1
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      OMPI_MCA_rmaps_base_oversubscribe=1
      PARENT_SCOPE)
  else()
    set(${out_flags} "" PARENT_SCOPE)
    set(${out_env} "" PARENT_SCOPE)
  endif()
endfunction()

# Flags that forward NAME=VALUE to every rank.
function(_dart_mpi_env_flag out name value)
  if(DART_MPI_FLAVOR STREQUAL "openmpi")
    set(${out} -x "${name}=${value}" PARENT_SCOPE)
  else()
    set(${out} -genv "${name}" "${value}" PARENT_SCOPE)
  endif()
endfunction()

function(dart_add_mpi_test)
  # PARSE_ARGV keeps empty list elements, so UPN "" 1 2 works as documented.
  cmake_parse_arguments(PARSE_ARGV 0 ARG "FAKE_HOSTS" "NAME;COMMAND;TIMEOUT"
                        "ARGS;UNITS;UPN;LABELS")
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

  _dart_mpi_launcher_flags(flavor_flags flavor_env)
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

  foreach(units IN LISTS ARG_UNITS)
    if(units GREATER 2)
      set(procs 2)  # 2 cores here: keep ctest -j2 from overloading the machine
    else()
      set(procs ${units})
    endif()
    foreach(upn IN LISTS upn_list)
      set(env_flags "")
      set(env ${flavor_env})
      set(labels ${DART_MPI_FLAVOR} n${units} ${ARG_LABELS})
      if(upn STREQUAL "none")
        set(name "${ARG_NAME}.n${units}")
      else()
        set(name "${ARG_NAME}.n${units}.upn${upn}")
        _dart_mpi_env_flag(env_flags DART_UNITS_PER_NODE ${upn})
        list(APPEND env DART_UNITS_PER_NODE=${upn})
        list(APPEND labels upn${upn})
      endif()
      add_test(NAME ${name}
        COMMAND "${MPIEXEC_EXECUTABLE}" ${flavor_flags} ${env_flags}
                ${np_flag} ${units} ${MPIEXEC_PREFLAGS}
                "${exe}" ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
      set_tests_properties(${name} PROPERTIES
        PROCESSORS ${procs} TIMEOUT ${ARG_TIMEOUT} LABELS "${labels}")
      if(env)
        set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
      endif()
    endforeach()
  endforeach()

  # Two emulated hosts on one machine (MPICH hydra only). With `-launcher fork` hydra
  # never contacts or resolves the host names, it only uses them to place ranks: nodeA gets
  # ranks 0,1 and nodeB ranks 2,3, and MPICH treats them as two nodes, so
  # MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) yields two groups {0,1} {2,3} and traffic
  # between them takes the network path. Checked with MPICH 4.0.2 (Debian 12).
  # Open MPI would need fake hostnames in separate UTS namespaces (see
  # /work/shared/notes/mpi-substrate.md), so it is not registered there.
  if(ARG_FAKE_HOSTS AND DART_MPI_FLAVOR STREQUAL "mpich")
    set(name "${ARG_NAME}.n4.fakehosts")
    add_test(NAME ${name}
      COMMAND "${MPIEXEC_EXECUTABLE}" -hosts nodeA:2,nodeB:2 -launcher fork
              ${np_flag} 4 ${MPIEXEC_PREFLAGS}
              "${exe}" ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
    set_tests_properties(${name} PROPERTIES
      PROCESSORS 2 TIMEOUT ${ARG_TIMEOUT}
      LABELS "${DART_MPI_FLAVOR};n4;fakehosts;${ARG_LABELS}")
  endif()
endfunction()

function(dart_add_mpi_test_from_source tgt src)
  cmake_parse_arguments(D "" "COMMENT;LABEL;TIMEOUT" "UNITS;UPN" ${ARGN})
  set(units ${D_UNITS})
  set(upn ${D_UPN})
  set(timeout ${D_TIMEOUT})
  set(labels ${D_LABEL})
  set(args "")
  set(fake "")
  set(marker "^[ \t]*${D_COMMENT}[ \t]*dart-test:")
  file(STRINGS "${src}" spec REGEX "${marker}")
  if(spec)
    list(GET spec 0 spec)  # the first such line counts
    string(REGEX REPLACE "${marker}[ \t]*" "" spec "${spec}")
    separate_arguments(spec UNIX_COMMAND "${spec}")
    cmake_parse_arguments(O "FAKE_HOSTS;NO_FAKE_HOSTS" "TIMEOUT" "UNITS;UPN;LABELS;ARGS"
                          ${spec})
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
    if(O_FAKE_HOSTS)
      set(fake FAKE_HOSTS)
    endif()
    if(O_NO_FAKE_HOSTS)
      set(fake NO)
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
                    UNITS ${units} UPN ${upn} TIMEOUT ${timeout} LABELS ${labels} ${fake})
endfunction()
