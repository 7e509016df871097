! SPDX-License-Identifier: BSD-3-Clause
! ftest_init: dart_init / dart_init_thread / dart_exit cycles inside a program that runs
! MPI itself, dart_initialized, dart_myid / dart_size against MPI, calls before init and
! after exit (DART_ERR_NOTINIT), double init (DART_ERR_INVAL), the locality queries and
! the text functions. With progress processes (DART_PROGRESS_PER_NODE > 0) DART refuses an
! MPI started before dart_init: the program checks that refusal instead of the cycles.
program ftest_init
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08
  use dart
  use ftest
  implicit none
  integer :: ierr, rank, size, stat, id, n, level, cycle, k, node, nn, i
  integer(int64) :: n8
  character(len=256) :: msg
  character(len=32) :: env
  integer :: envlen, envstat

  ! The program starts MPI, so that DART leaves it running and can cycle.
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call ftest_start('ftest_init', init_dart=.false.)
  me = rank
  nunits = size

  if (ftest_progress() > 0) then
    call ftest_section('refused with progress processes')
    msg = ''
    call dart_init(stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_init', 'DART_PROGRESS_PER_NODE', &
                    'dart_init after MPI_Init')
    msg = ''
    call dart_init_thread(level, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_init_thread', 'DART_PROGRESS_PER_NODE', &
                    'dart_init_thread after MPI_Init')
    call check(.not. dart_initialized(), 'not initialized after the refusal')
    call ftest_finish(finalize_dart=.false.)
    call MPI_Finalize(ierr)
    stop
  end if

  call ftest_section('before dart_init')
  call check(.not. dart_initialized(), 'dart_initialized() before dart_init')
  msg = 'unchanged'
  id = -7
  call dart_myid(id, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_myid', 'not initialized', 'dart_myid')
  call check(id == -7, 'dart_myid wrote its output on failure')
  call dart_size(n, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_size', 'not initialized', 'dart_size')
  call dart_exit(stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_exit', 'not initialized', 'dart_exit')
  call dart_node_count(n, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_node_count', 'not initialized', &
                  'dart_node_count')
  call dart_unit_node(0, node, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_unit_node', 'not initialized', &
                  'dart_unit_node')
  call dart_units_per_node_emulation(k, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_units_per_node_emulation', &
                  'not initialized', 'dart_units_per_node_emulation')
  call check(dart_strerror(DART_ERR_NOTINIT) == 'DART is not initialized', &
             'dart_strerror(DART_ERR_NOTINIT) = "' // dart_strerror(DART_ERR_NOTINIT) // '"')
  call check(dart_strerror(DART_OK) == 'success', 'dart_strerror(DART_OK)')
  call check(dart_strerror(DART_ERR_INVAL) == 'invalid argument', 'dart_strerror(INVAL)')
  call check(dart_strerror(12345) == 'unknown DART return code', 'dart_strerror(12345)')
  call check(index(dart_error_detail(), 'dart_units_per_node_emulation') > 0, &
             'dart_error_detail() names the last failed call: ' // dart_error_detail())
  call check(len(dart_mpi_version()) >= 5 .and. index(dart_mpi_version(), '.') > 0, &
             'dart_mpi_version() = "' // dart_mpi_version() // '"')

  ! Three cycles: dart_init, dart_init_thread, dart_init.
  do cycle = 1, 3
    call ftest_section('cycle')
    if (cycle == 2) then
      level = -1
      call dart_init_thread(level, stat=stat)
      call check_ok(stat, 'dart_init_thread')
      call check(level == DART_THREAD_MULTIPLE .or. level == DART_THREAD_SINGLE, &
                 'dart_init_thread: provided level is a DART level')
    else
      call dart_init(stat=stat, errmsg=msg)
      call check_ok(stat, 'dart_init')
    end if
    call check(dart_initialized(), 'dart_initialized() after init')

    ! double initialization
    msg = ''
    call dart_init(stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_init', 'already', 'second dart_init')
    call dart_init_thread(level, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_init_thread', 'already', &
                    'dart_init_thread while initialized')
    call check(dart_initialized(), 'still initialized after a failed second dart_init')

    ! ids against MPI (both integer kinds of dart_size)
    call dart_myid(id, stat=stat)
    call check_ok(stat, 'dart_myid')
    call check(id == rank, 'dart_myid == MPI rank')
    call dart_size(n, stat=stat)
    call check(stat == DART_OK .and. n == size, 'dart_size (default integer) == MPI size')
    call dart_size(n8, stat=stat)
    call check(stat == DART_OK .and. n8 == size, 'dart_size (int64) == MPI size')

    ! locality against DART_UNITS_PER_NODE
    call dart_units_per_node_emulation(k, stat=stat)
    call check_ok(stat, 'dart_units_per_node_emulation')
    call get_environment_variable('DART_UNITS_PER_NODE', env, envlen, envstat)
    if (envstat == 0 .and. envlen > 0) then
      read(env, *) i
      call check(k == i, 'dart_units_per_node_emulation == DART_UNITS_PER_NODE')
      call dart_node_count(nn, stat=stat)
      call check_ok(stat, 'dart_node_count')
      call check(nn >= (size + i - 1) / i, 'dart_node_count >= ceiling(size / k)')
      call dart_unit_node(rank, node, stat=stat)
      call check_ok(stat, 'dart_unit_node')
      if (i == 1) call check(node == rank, 'with k = 1 every unit is its own node')
    else
      call check(k == 0, 'emulation off without DART_UNITS_PER_NODE')
      call dart_node_count(n8, stat=stat)
      call check(stat == DART_OK .and. n8 >= 1, 'dart_node_count (int64) >= 1')
    end if
    call dart_unit_node(size, node, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_unit_node', 'out of range', &
                    'dart_unit_node(size)')
    call dart_unit_node(-1, node, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_unit_node', '', 'dart_unit_node(-1)')
    call check(index(dart_config_string(), 'DART-MPI') > 0, &
               'dart_config_string() = "' // dart_config_string() // '"')

    call dart_barrier(DART_TEAM_ALL, stat=stat)
    call check_ok(stat, 'dart_barrier')
    call dart_exit(stat=stat, errmsg=msg)
    call check_ok(stat, 'dart_exit')
    call check(.not. dart_initialized(), 'dart_initialized() after dart_exit')

    ! after exit
    call dart_myid(id, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_myid', 'not initialized', &
                    'dart_myid after dart_exit')
    call dart_exit(stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_exit', 'not initialized', &
                    'second dart_exit')
    call dart_barrier(DART_TEAM_ALL, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_NOTINIT, msg, 'dart_barrier', 'not initialized', &
                    'dart_barrier after dart_exit')
  end do

  ! MPI is still running (the program started it): agree and finalize it here.
  call ftest_finish(finalize_dart=.false.)
  call MPI_Finalize(ierr)
end program ftest_init
