! SPDX-License-Identifier: BSD-3-Clause
! fprog_abort <mode>: the abort path of the Fortran module. A failing call WITHOUT stat=
! must print "DART error on unit <id>: <function>: <detail>" to error_unit and end the
! WHOLE job (dart_abort -> MPI_Abort), also the units that wait in a barrier meanwhile.
! Run by check_abort.cmake, which checks the exit status, the time and the message.
!
! modes: put, errmsg, collective, section, dart_abort, notinit, local, array (see below).
program fprog_abort
  use, intrinsic :: iso_fortran_env, only: error_unit, real64
  use mpi_f08
  use dart
  implicit none
  character(len=32) :: mode
  character(len=200) :: msg
  integer :: me, n, ierr, k
  type(dart_gptr) :: g, t
  real(real64), target :: a(5)
  real(real64), pointer :: p(:)
  type(dart_array) :: u

  call get_command_argument(1, mode)
  if (mode == 'notinit') then
    ! MPI runs (started here), DART does not: the unit id in the message is the MPI rank.
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    if (me == n - 1) call dart_barrier(DART_TEAM_ALL)   ! DART_ERR_NOTINIT, no stat
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Finalize(ierr)
    stop
  end if

  call dart_init()
  call dart_myid(me)
  call dart_size(n)
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 5, DART_TYPE_DOUBLE, g)
  a = 1
  select case (mode)
  case ('put')
    ! unit n-1 writes to unit n, which does not exist
    if (me == n - 1) then
      t = g
      call dart_gptr_setunit(t, n)
      call dart_put_blocking(t, a)
    end if
  case ('errmsg')
    ! errmsg= alone does not catch the error: without stat= the job still aborts
    if (me == n - 1) call dart_memfree(g, errmsg=msg)
  case ('collective')
    ! every unit passes the same bad root
    call dart_bcast(a, n, DART_TEAM_ALL)
  case ('section')
    ! a reversed section has no DART datatype (the core's layout engine says so)
    if (me == n - 1) call dart_get_blocking(a(5:1:-1), g)
  case ('dart_abort')
    if (me == n - 1) then
      write(error_unit, '(a,i0,a)') 'fprog_abort: unit ', me, ' calls dart_abort'
      flush(error_unit)
      call dart_abort(3)
    end if
  case ('local')
    ! a pointer into the memory of a unit on another node (run with DART_UNITS_PER_NODE)
    if (me == n - 1) call dart_local(g, p, [5])
  case ('array')
    ! a distributed array with an argument of the wrong size on unit n-1 only: that unit
    ! names it, every unit fails the creation (none waits) and the job ends
    if (me == n - 1) then
      call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo=[1, 1, 1])
    else
      call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo=[1, 1])
    end if
  case default
    write(error_unit, '(a)') 'fprog_abort: unknown mode ' // trim(mode)
    error stop 2
  end select
  ! Only reached if no abort happened: the job then ends normally, with status 0, which
  ! check_abort.cmake reports as a failure.
  call dart_barrier(DART_TEAM_ALL)
  k = 0
  if (me == 0) write(error_unit, '(a)') 'fprog_abort: no abort happened'
  call dart_team_memfree(g)
  call dart_exit()
end program fprog_abort
