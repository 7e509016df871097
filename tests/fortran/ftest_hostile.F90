! SPDX-License-Identifier: BSD-3-Clause
! dart-test: UNITS 2 UPN none 1 2 TIMEOUT 180
!
! ftest_hostile: hostile input through the Fortran wrappers, all with stat= (so nothing
! aborts). A fixed-seed generator, the same on every unit (every unit makes the same calls
! with the same arguments; collectives get the same bad argument everywhere), picks a
! wrapper and a bad or boundary argument: garbage and freed gptrs, unit ids out of range,
! destroyed teams and groups, undefined types, zero and negative sizes. Every stat must
! be DART_OK or a DART error code with "<function>: ..." in errmsg; after every round a
! valid put/get ring must still work. Unit 0 prints the calls per category
! (docs/error-contract.md, "Hostile input").
program ftest_hostile
  use, intrinsic :: iso_fortran_env, only: int16, int32, int64, real64, output_unit
  use, intrinsic :: iso_c_binding, only: c_ptr
  use dart
  use ftest
  implicit none
  integer, parameter :: ncat = 6, rounds = 25, calls_per_round = 40
  character(len=12), parameter :: cats(ncat) = [character(len=12) :: &
    'gptr', 'onesided', 'atomics', 'teams', 'groups', 'collectives']
  integer :: ncalls(ncat) = 0, nerr(ncat) = 0
  integer(int64) :: seed = 20261124_int64
  type(dart_gptr) :: g, freed, pool_freed
  integer(DART_TEAM_KIND) :: dead_team, t
  type(dart_group) :: grp, dead_grp, gtmp
  integer :: rnd, i, left, right
  real(real64), target :: buf(64), one(1)
  character(len=40) :: last = ''

  call ftest_start('ftest_hostile')
  call ftest_section('setup')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_DOUBLE, g)
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_DOUBLE, freed)
  call dart_team_memfree(freed)
  call dart_memalloc(4, DART_TYPE_DOUBLE, pool_freed)
  call dart_memfree(pool_freed)
  call dart_team_clone(DART_TEAM_ALL, dead_team)
  t = dead_team
  call dart_team_destroy(t)
  call dart_group_create(grp)
  call dart_group_create(dead_grp)
  gtmp = dead_grp                 ! dead_grp keeps the stale handle
  call dart_group_destroy(gtmp)
  buf = 0
  right = mod(me + 1, nunits)
  left = mod(me + nunits - 1, nunits)

  call ftest_section('random calls')
  do rnd = 1, rounds
    do i = 1, calls_per_round
      select case (below(6))
      case (0)
        call gptr_call()
      case (1, 2)
        call onesided_call()
      case (3)
        call atomic_call()
      case (4)
        call team_group_call()
      case default
        call collective_call()
      end select
    end do
    call still_works(rnd)
  end do

  call dart_group_destroy(grp)
  call dart_team_memfree(g)
  if (me == 0) then
    write(output_unit, '(a,i0,a)') 'hostile Fortran calls per category (seed ', 20261124, '):'
    do i = 1, ncat
      write(output_unit, '(2x,a12,1x,i6,a,i6,a,i6,a)') cats(i), ncalls(i), ' calls: ', &
        ncalls(i) - nerr(i), ' OK, ', nerr(i), ' errors'
    end do
    write(output_unit, '(2x,a12,1x,i6,a,i6,a,i6,a)') 'total       ', sum(ncalls), ' calls: ', &
      sum(ncalls) - sum(nerr), ' OK, ', sum(nerr), ' errors'
  end if
  call check(sum(ncalls) > 800, 'enough calls')
  call ftest_finish()

contains

  ! The shared generator (Park-Miller, no overflow in 64 bits).
  integer function below(n)
    integer, intent(in) :: n
    seed = modulo(seed * 48271_int64, 2147483647_int64)
    below = int(modulo(seed, int(n, int64)))
  end function below

  integer function pick(a)
    integer, intent(in) :: a(:)
    pick = a(below(size(a)) + 1)
  end function pick

  integer(int64) function pick8(a)
    integer(int64), intent(in) :: a(:)
    pick8 = a(below(size(a)) + 1)
  end function pick8

  integer(DART_TEAM_KIND) function pickt(a)
    integer(DART_TEAM_KIND), intent(in) :: a(:)
    pickt = a(below(size(a)) + 1)
  end function pickt

  ! Records a call: a DART code; a failure names the wrapper in errmsg.
  subroutine note(cat, stat, msg, fname)
    integer, intent(in) :: cat, stat
    character(len=*), intent(in) :: msg, fname
    last = fname
    ncalls(cat) = ncalls(cat) + 1
    call check(stat == DART_OK .or. stat == DART_ERR_INVAL .or. stat == DART_ERR_NOTFOUND .or. &
               stat == DART_ERR_NOMEM .or. stat == DART_ERR_OTHER, fname // ': not a DART code')
    if (stat /= DART_OK) then
      nerr(cat) = nerr(cat) + 1
      call check(index(msg, fname // ': ') == 1, fname // ': errmsg "' // trim(msg) // '"')
    end if
  end subroutine note

  function bad_gptr() result(b)
    type(dart_gptr) :: b
    integer :: st
    b = g
    select case (below(8))
    case (0)
      b = DART_GPTR_NULL
    case (1)
      b = freed
    case (2)
      b = pool_freed
    case (3)
      call dart_gptr_setunit(b, pick([-1, nunits, 1000000, 2 * nunits]), stat=st)
    case (4)
      call dart_gptr_incaddr(b, pick8([128_int64, 121_int64, -8_int64, 2_int64**40]), stat=st)
    case (5)
      call dart_gptr_make(below(4) - 1, 0, int(below(600) - 300, int16), &
                          int(below(40) - 2, DART_TEAM_KIND), int(below(4096), int64), b, stat=st)
    case (6)
      call dart_gptr_make(0, 0, g_segid(), dead_team, 0_int64, b, stat=st)
    case default
      call dart_gptr_setunit(b, below(nunits))
      call dart_gptr_incaddr(b, 8_int64 * below(16))
    end select
  end function bad_gptr

  integer(int16) function g_segid()
    integer :: u, f
    integer(int16) :: s
    integer(DART_TEAM_KIND) :: tm
    integer(int64) :: o
    call dart_gptr_fields(g, u, f, s, tm, o)
    g_segid = s
  end function g_segid

  subroutine gptr_call()
    type(dart_gptr) :: b
    integer :: st, flags
    integer(int64) :: nb
    character(len=200) :: msg
    type(c_ptr) :: p
    b = bad_gptr()
    msg = ''
    select case (below(4))
    case (0)
      call dart_gptr_segment_size(b, nb, stat=st, errmsg=msg)
      call note(1, st, msg, 'dart_gptr_segment_size')
    case (1)
      call dart_gptr_getaddr(b, p, stat=st, errmsg=msg)
      call note(1, st, msg, 'dart_gptr_getaddr')
    case (2)
      call dart_gptr_getflags(b, flags, stat=st, errmsg=msg)
      call note(1, st, msg, 'dart_gptr_getflags')
    case default
      call dart_gptr_setunit(b, pick([-5, nunits, 8388608, 0]), stat=st, errmsg=msg)
      call note(1, st, msg, 'dart_gptr_setunit')
    end select
  end subroutine gptr_call

  subroutine onesided_call()
    type(dart_gptr) :: b
    integer :: st, n
    character(len=200) :: msg
    b = bad_gptr()
    n = pick([0, 1, 4, 16, 17, 64])
    msg = ''
    select case (below(5))
    case (0)
      call dart_put_blocking(b, buf(1:n), stat=st, errmsg=msg)
      call note(2, st, msg, 'dart_put_blocking')
    case (1)
      call dart_get_blocking(buf(1:n), b, stat=st, errmsg=msg)
      call note(2, st, msg, 'dart_get_blocking')
    case (2)
      call dart_get_blocking(buf(n:1:-1), b, stat=st, errmsg=msg)   ! a reversed section
      call note(2, st, msg, 'dart_get_blocking')
    case (3)
      call dart_put(b, buf(1:min(n, 64):2), stat=st, errmsg=msg)     ! a strided section
      call note(2, st, msg, 'dart_put')
    case default
      call dart_flush_all(b, stat=st, errmsg=msg)
      call note(2, st, msg, 'dart_flush_all')
    end select
    call dart_flush_all(g)
  end subroutine onesided_call

  subroutine atomic_call()
    type(dart_gptr) :: b
    integer :: st
    integer(DART_OPERATION_KIND) :: op
    character(len=200) :: msg
    real(real64) :: r
    b = bad_gptr()
    op = int(below(16) - 1, DART_OPERATION_KIND)
    msg = ''
    if (below(2) == 0) then
      call dart_accumulate(b, buf(1:below(3) + 1), op, stat=st, errmsg=msg)
      call note(3, st, msg, 'dart_accumulate')
    else
      call dart_fetch_and_op(b, 1.0_real64, r, op, stat=st, errmsg=msg)
      call note(3, st, msg, 'dart_fetch_and_op')
    end if
    call dart_flush_all(g)
  end subroutine atomic_call

  subroutine team_group_call()
    integer :: st, id, n
    integer(DART_TEAM_KIND) :: tm
    type(dart_group) :: gr, out
    logical :: ism
    character(len=200) :: msg
    tm = pickt([DART_TEAM_NULL, dead_team, -2_DART_TEAM_KIND, 31000_DART_TEAM_KIND, DART_TEAM_ALL])
    msg = ''
    select case (below(6))
    case (0)
      call dart_team_myid(tm, id, stat=st, errmsg=msg)
      call note(4, st, msg, 'dart_team_myid')
    case (1)
      call dart_team_size(tm, n, stat=st, errmsg=msg)
      call note(4, st, msg, 'dart_team_size')
    case (2)
      call dart_team_unit_l2g(tm, pick([-1, nunits, 0]), id, stat=st, errmsg=msg)
      call note(4, st, msg, 'dart_team_unit_l2g')
    case (3)
      gr = grp
      if (below(2) == 0) gr = dead_grp
      call dart_group_addmember(gr, pick([-1, nunits, 1000000, 0]), stat=st, errmsg=msg)
      call note(5, st, msg, 'dart_group_addmember')
    case (4)
      gr = dead_grp
      call dart_group_clone(gr, out, stat=st, errmsg=msg)
      call note(5, st, msg, 'dart_group_clone')
      if (st == DART_OK) call dart_group_destroy(out)
    case default
      gr = grp
      if (below(2) == 0) gr = dead_grp
      call dart_group_ismember(gr, pick([-1, nunits, 0]), ism, stat=st, errmsg=msg)
      call note(5, st, msg, 'dart_group_ismember')
    end select
  end subroutine team_group_call

  ! One defect, the same on every unit (the same draws): the call fails everywhere.
  subroutine collective_call()
    integer :: st, all_st(2)
    integer(DART_TEAM_KIND) :: tm, nt
    type(dart_gptr) :: ng
    character(len=200) :: msg
    tm = pickt([DART_TEAM_NULL, dead_team, -3_DART_TEAM_KIND, 30000_DART_TEAM_KIND])
    msg = ''
    select case (below(5))
    case (0)
      call dart_barrier(tm, stat=st, errmsg=msg)
      call note(6, st, msg, 'dart_barrier')
    case (1)
      call dart_bcast(buf(1:4), pick([-1, nunits, 1000]), DART_TEAM_ALL, stat=st, errmsg=msg)
      call note(6, st, msg, 'dart_bcast')
    case (2)
      call dart_team_memalloc_aligned(tm, 4, DART_TYPE_DOUBLE, ng, stat=st, errmsg=msg)
      call note(6, st, msg, 'dart_team_memalloc_aligned')
    case (3)
      call dart_team_memfree(freed, stat=st, errmsg=msg)
      call note(6, st, msg, 'dart_team_memfree')
    case default
      call dart_team_create(DART_TEAM_ALL, dead_grp, nt, stat=st, errmsg=msg)
      call note(6, st, msg, 'dart_team_create')
    end select
    call check(st /= DART_OK, 'a collective accepted a bad argument: ' // trim(last))
    all_st = [st, -st]
    call dart_allreduce_int_max(all_st)
    call check(all_st(1) == -all_st(2), 'the units disagree on a collective''s result')
  end subroutine collective_call

  ! max of st and of -st over the units: equal iff every unit had the same st.
  subroutine dart_allreduce_int_max(v)
    integer, intent(inout) :: v(2)
    integer(int32) :: in(2), out(2)
    in = int(v, int32)
    call dart_allreduce(in, out, DART_OP_MAX, DART_TEAM_ALL)
    v = out
  end subroutine dart_allreduce_int_max

  subroutine still_works(r)
    integer, intent(in) :: r
    type(dart_gptr) :: rg, mine
    rg = g
    mine = g
    call dart_gptr_setunit(rg, right)
    call dart_gptr_setunit(mine, me)
    call dart_barrier(DART_TEAM_ALL)
    one = real(100 * r + me, real64)
    call dart_put_blocking(rg, one)
    call dart_barrier(DART_TEAM_ALL)
    one = -1
    call dart_get_blocking(one, mine)
    call check(one(1) == real(100 * r + left, real64), 'the ring still works after a round')
    call dart_barrier(DART_TEAM_ALL)
  end subroutine still_works

end program ftest_hostile
