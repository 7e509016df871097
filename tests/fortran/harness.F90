! SPDX-License-Identifier: BSD-3-Clause
! ftest: the little harness of the Fortran test programs.
!
! Checks are local (they count failures and print them with the unit id); ftest_finish
! reduces the failure count over the units (ftest_comm) so that every unit agrees, prints one
! summary line on unit 0 and stops with a non-zero status on every unit if anything
! failed. A check never skips a collective, so a failing unit cannot hang the others.
module ftest
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit, int64
  use mpi_f08
  use dart
  implicit none
  private
  public :: ftest_start, ftest_finish, ftest_section, check, check_stat, check_ok
  public :: ftest_reduce_failures, me, nunits, upn, mynode, nnodes, same_node
  public :: ftest_solo_team, ftest_locality, ftest_comm, ftest_progress, ftest_oversubscribed
  public :: itoa

  integer, save :: nfail = 0, nchecks = 0
  integer, save :: me = -1, nunits = 0
  integer, save :: upn = 0         ! DART_UNITS_PER_NODE in force (0: off)
  integer, save :: mynode = -1, nnodes = 0
  character(len=64), save :: current = ''
  character(len=64), save :: progname = ''

contains

  !> Initialize DART (unless init_dart is .false.) and remember who we are.
  subroutine ftest_start(name, init_dart)
    character(len=*), intent(in) :: name
    logical, intent(in), optional :: init_dart
    logical :: do_init
    progname = name
    do_init = .true.
    if (present(init_dart)) do_init = init_dart
    if (do_init) then
      call dart_init()
      call ftest_locality()
    end if
  end subroutine ftest_start

  subroutine ftest_locality()
    integer :: k
    call dart_myid(me)
    call dart_size(nunits)
    call dart_units_per_node_emulation(upn)
    call dart_unit_node(me, mynode)
    call dart_node_count(k)
    nnodes = k
  end subroutine ftest_locality

  !> Whether global unit u shares the caller's node.
  logical function same_node(u)
    integer, intent(in) :: u
    integer :: node
    call dart_unit_node(u, node)
    same_node = node == mynode
  end function same_node

  !> A team holding only the calling unit (one team per unit, created one after another,
  !> collectively over DART_TEAM_ALL), to run a test body on a one-unit team.
  function ftest_solo_team() result(solo)
    integer(DART_TEAM_KIND) :: solo, t
    type(dart_group) :: grp
    integer :: u, stat
    solo = DART_TEAM_NULL
    do u = 0, nunits - 1
      call dart_group_create(grp)
      call dart_group_addmember(grp, u)
      call dart_team_create(DART_TEAM_ALL, grp, t, stat=stat)
      call check(stat == DART_OK, 'dart_team_create (one-unit team)')
      if (u == me) solo = t
      call dart_group_destroy(grp)
    end do
  end function ftest_solo_team

  subroutine ftest_section(name)
    character(len=*), intent(in) :: name
    current = name
  end subroutine ftest_section

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    nchecks = nchecks + 1
    if (.not. cond) then
      nfail = nfail + 1
      write(error_unit, '(a,i0,5a)') '[unit ', me, '] FAIL ', trim(progname), ' / ', &
        trim(current), ': ' // what
      flush(error_unit)
    end if
  end subroutine check

  !> n as text, for the messages of checks.
  function itoa(n) result(s)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    character(len=16) :: b
    write(b, '(i0)') n
    s = trim(b)
  end function itoa

  !> A call with stat= that must have succeeded.
  subroutine check_ok(stat, what)
    integer, intent(in) :: stat
    character(len=*), intent(in) :: what
    character(len=16) :: s
    write(s, '(i0)') stat
    call check(stat == DART_OK, what // ' returned stat ' // trim(s) // ' (' // &
               dart_strerror(stat) // '): ' // dart_error_detail())
  end subroutine check_ok

  !> A failed call: stat must be `expected`, errmsg must start with "<fname>: " and
  !> contain `part`.
  subroutine check_stat(stat, expected, errmsg, fname, part, what)
    integer, intent(in) :: stat, expected
    character(len=*), intent(in) :: errmsg, fname, part, what
    character(len=32) :: s
    write(s, '(i0,a,i0)') stat, ' expected ', expected
    call check(stat == expected, what // ': stat ' // trim(s) // ', errmsg "' // &
               trim(errmsg) // '"')
    call check(index(errmsg, fname // ': ') == 1, what // ': errmsg "' // trim(errmsg) // &
               '" does not start with "' // fname // ': "')
    call check(index(errmsg, part) > 0, what // ': errmsg "' // trim(errmsg) // &
               '" lacks "' // part // '"')
  end subroutine check_stat

  !> DART_PROGRESS_PER_NODE of this job (0: unset), read from the environment because it
  !> matters before dart_init: with progress processes dart_init refuses an MPI that the
  !> program started before it.
  integer function ftest_progress()
    character(len=32) :: v
    integer :: vlen, vstat, ios
    ftest_progress = 0
    call get_environment_variable('DART_PROGRESS_PER_NODE', v, vlen, vstat)
    if (vstat == 0 .and. vlen > 0) then
      read(v, *, iostat=ios) ftest_progress
      if (ios /= 0) ftest_progress = 0
    end if
  end function ftest_progress

  !> The processes the harness's own collectives run over: DART_TEAM_ALL's communicator
  !> while DART runs (MPI_COMM_WORLD also holds the progress processes), else
  !> MPI_COMM_WORLD (a program that runs MPI itself).
  type(MPI_Comm) function ftest_comm()
    ftest_comm = MPI_COMM_WORLD
    if (dart_initialized()) call dart_team_comm(DART_TEAM_ALL, ftest_comm)
  end function ftest_comm

  !> Whether this host runs more processes than it has cores (the CI's 3- and 4-unit jobs
  !> on 2 cores, and 2 units with progress processes), as tests/cpp's oversubscribed(): the
  !> units by host name (the fakehosts jobs tell MPI of two hosts), plus the progress
  !> processes of the nodes of this host's units (DART_PROGRESS_PER_NODE per node: they run
  !> no test code but poll all the time). Collective over ftest_comm(). Tests run fewer
  !> repetitions there: every creation of a window costs tens of milliseconds of
  !> scheduling.
  logical function ftest_oversubscribed()
    use, intrinsic :: iso_c_binding, only: c_int, c_char, c_size_t, c_null_char
    interface
      function gethostname(name, len) bind(C, name='gethostname') result(rc)
        import :: c_int, c_char, c_size_t
        character(kind=c_char), intent(inout) :: name(*)
        integer(c_size_t), value :: len
        integer(c_int) :: rc
      end function
      function get_nprocs() bind(C, name='get_nprocs') result(n)   ! glibc
        import :: c_int
        integer(c_int) :: n
      end function
    end interface
    integer, parameter :: NAMELEN = 256
    character(kind=c_char) :: name(NAMELEN)
    character(len=NAMELEN) :: mine
    character(len=NAMELEN), allocatable :: all(:)
    integer :: size, ierr, i, procs, node
    integer, allocatable :: nodes(:)
    name = c_null_char
    ftest_oversubscribed = .false.
    if (gethostname(name, int(NAMELEN - 1, c_size_t)) /= 0) name = c_null_char
    mine = ''
    do i = 1, NAMELEN
      if (name(i) == c_null_char) exit
      mine(i:i) = name(i)
    end do
    call MPI_Comm_size(ftest_comm(), size, ierr)
    allocate(all(size))
    call MPI_Allgather(mine, NAMELEN, MPI_CHARACTER, all, NAMELEN, MPI_CHARACTER, ftest_comm(), &
                       ierr)
    procs = count(all == mine)
    if (ftest_progress() > 0 .and. dart_initialized()) then
      allocate(nodes(0))
      do i = 1, size
        if (all(i) /= mine) cycle
        call dart_unit_node(i - 1, node)
        if (.not. any(nodes == node)) nodes = [nodes, node]
      end do
      procs = procs + ftest_progress() * ubound(nodes, 1)   ! (size is a variable here)
    end if
    ftest_oversubscribed = procs > get_nprocs()
  end function ftest_oversubscribed

  !> Sum of the failures of every unit (collective over ftest_comm()).
  integer function ftest_reduce_failures()
    integer :: total, ierr
    call MPI_Allreduce(nfail, total, 1, MPI_INTEGER, MPI_SUM, ftest_comm(), ierr)
    ftest_reduce_failures = total
  end function ftest_reduce_failures

  !> Agree on the result, shut DART down (if finalize_dart) and stop.
  subroutine ftest_finish(finalize_dart)
    logical, intent(in), optional :: finalize_dart
    integer :: total
    integer(int64) :: checks, ierr
    logical :: do_exit
    integer :: ierr4
    total = ftest_reduce_failures()
    checks = nchecks
    call MPI_Allreduce(MPI_IN_PLACE, checks, 1, MPI_INTEGER8, MPI_SUM, ftest_comm(), ierr4)
    ierr = ierr4
    if (me == 0) then
      write(output_unit, '(a,a,i0,a,i0,a,i0,a,i0,a)') trim(progname), ': ', checks, &
        ' checks on ', nunits, ' units (', nnodes, ' nodes), ', total, ' failed'
      flush(output_unit)
    end if
    do_exit = .true.
    if (present(finalize_dart)) do_exit = finalize_dart
    if (do_exit) call dart_exit()
    if (total > 0) error stop 1
  end subroutine ftest_finish

end module ftest
