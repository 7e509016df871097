! SPDX-License-Identifier: BSD-3-Clause
! ftest_atomics: dart_accumulate (+ flush), dart_accumulate_blocking_local (also of a
! section), dart_fetch_and_op (tickets, atomic reads), dart_compare_and_swap (32 and 64
! bit election), the C-style accumulate, and team locks (a non-atomic read-modify-write
! protected by the lock, try_acquire, lock_initialized), with good and bad input.
program ftest_atomics
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use, intrinsic :: iso_c_binding
  use dart
  use ftest
  implicit none
  integer, parameter :: rounds = 20
  type(dart_gptr) :: g, at0, slot
  integer(int32), pointer :: w32(:)
  integer(int64), pointer :: w64(:)
  real(real64), pointer :: wr(:)
  complex(real64), pointer :: wz(:)
  integer(int32) :: one32, old32, res32, cmp32, vals32(4), seen32
  integer(int64) :: one64, old64, res64, cmp64, tickets(rounds), winner64
  real(real64) :: old, xs(3, 4)
  real(real32) :: x4
  complex(real64), target :: z(2)
  integer :: stat, i, u, k
  logical :: dup
  character(len=256) :: msg
  integer(int64), allocatable :: all_tickets(:)

  call ftest_start('ftest_atomics')
  ! layout of every unit's part (bytes): 0 int32 x4 | 16 int64 x4 | 48 real64 x4 |
  ! 80 complex64 x2 | 112 lock-protected int64 counter | 120.. scratch
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 256, DART_TYPE_BYTE, g)
  call view_own()
  w32 = 0
  w64 = 0
  wr = 0
  wz = 0
  call dart_barrier(DART_TEAM_ALL)
  at0 = g          ! unit 0's part

  ! ---------------------------------------------------------------------------------
  call ftest_section('accumulate')
  one32 = 1
  vals32 = [1, 2, 3, 4]
  do u = 0, nunits - 1
    slot = g
    call dart_gptr_setunit(slot, u)
    call dart_accumulate(slot, vals32, DART_OP_SUM, stat=stat)
    call check_ok(stat, 'dart_accumulate (int32 x4)')
  end do
  call dart_flush_all(g)
  do u = 0, nunits - 1
    slot = g
    call dart_gptr_setunit(slot, u)
    call dart_gptr_incaddr(slot, 48)
    xs(1, 1) = real(me, real64)
    xs(1, 2) = 0.5_real64
    call dart_accumulate_blocking_local(slot, xs(1, 1:2), DART_OP_SUM, stat=stat)
    call check_ok(stat, 'dart_accumulate_blocking_local of a row section')
    slot = g
    call dart_gptr_setunit(slot, u)
    call dart_gptr_incaddr(slot, 80)
    z = [cmplx(me, 1, real64), cmplx(0, -me, real64)]
    call dart_accumulate_blocking_local(slot, z, DART_OP_SUM, stat=stat)
    call check_ok(stat, 'dart_accumulate_blocking_local of complex(real64)')
  end do
  call dart_flush_all(g)
  call dart_barrier(DART_TEAM_ALL)
  call check(all(w32 == nunits * [1, 2, 3, 4]), 'accumulated int32 sums')
  call check(wr(1) == nunits * (nunits - 1) / 2 .and. wr(2) == 0.5_real64 * nunits, &
             'accumulated real64 sums (from a section)')
  call check(wz(1) == cmplx(nunits * (nunits - 1) / 2, nunits, real64) .and. &
             wz(2) == cmplx(0, -nunits * (nunits - 1) / 2, real64), 'accumulated complex sums')
  call dart_barrier(DART_TEAM_ALL)
  ! C-style, both nelem kinds: REPLACE the first two int32 of unit 0
  if (me == 0) then
    call dart_accumulate(at0, vals32, 2, DART_TYPE_INT, DART_OP_REPLACE, stat=stat)
    call check_ok(stat, 'C-style dart_accumulate')
    call dart_accumulate_blocking_local(at0, vals32(3:4), 2_c_size_t, DART_TYPE_INT, DART_OP_MAX, &
                                        stat=stat)
    call check_ok(stat, 'C-style dart_accumulate_blocking_local')
    call dart_flush(at0)
    call check(w32(1) == 3 .and. w32(2) == 4, 'C-style accumulate values')
  end if
  ! bad input
  call dart_accumulate(g, xs(1, :), DART_OP_SUM, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_accumulate', 'contiguous', &
                  'accumulate of a non-contiguous section')
  call dart_accumulate(g, z, DART_OP_PROD, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_accumulate', 'DART_OP_SUM and DART_OP_REPLACE', &
                  'accumulate PROD of complex')
  call dart_accumulate_blocking_local(g, z, DART_OP_MAX, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_accumulate_blocking_local', 'complex', &
                  'accumulate_blocking_local MAX of complex')
  call dart_accumulate(g, vals32, DART_OP_NO_OP, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_accumulate', 'DART_OP_NO_OP', 'accumulate NO_OP')
  slot = g
  call dart_gptr_setunit(slot, nunits)
  call dart_accumulate_blocking_local(slot, vals32, DART_OP_SUM, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_accumulate_blocking_local', 'out of range', &
                  'accumulate to unit size')
  call dart_accumulate(g, vals32, -1, DART_TYPE_INT, DART_OP_SUM, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_accumulate', 'negative', &
                  'C-style accumulate of -1 elements')
  call dart_barrier(DART_TEAM_ALL)

  ! ---------------------------------------------------------------------------------
  call ftest_section('fetch_and_op')
  ! tickets: every unit draws `rounds` tickets from unit 0's int64 word 3 (offset 32)
  slot = at0
  call dart_gptr_incaddr(slot, 32)
  one64 = 1
  do i = 1, rounds
    old64 = -1
    call dart_fetch_and_op(slot, one64, old64, DART_OP_SUM, stat=stat)
    if (stat /= DART_OK) exit
    tickets(i) = old64
  end do
  call check_ok(stat, 'dart_fetch_and_op (int64 tickets)')
  allocate(all_tickets(rounds * nunits))
  call dart_allgather(tickets, all_tickets, DART_TEAM_ALL)
  dup = .false.
  do i = 0, rounds * nunits - 1
    dup = dup .or. count(all_tickets == i) /= 1
  end do
  call check(.not. dup, 'tickets 0 .. rounds*units-1 each drawn exactly once')
  deallocate(all_tickets)  ! a main program's allocatables are never freed for us (LSan)
  call dart_barrier(DART_TEAM_ALL)
  call dart_fetch_and_op(slot, one64, old64, DART_OP_NO_OP, stat=stat)
  call check(stat == DART_OK .and. old64 == rounds * nunits, 'atomic read with DART_OP_NO_OP')
  ! int32 and real64 and small integer kinds
  slot = at0
  call dart_gptr_incaddr(slot, 12)
  call dart_fetch_and_op(slot, 5_int32, old32, DART_OP_MAX, stat=stat)
  call check_ok(stat, 'dart_fetch_and_op (int32 MAX)')
  slot = at0
  call dart_gptr_incaddr(slot, 56)
  call dart_fetch_and_op(slot, 1.5_real64, old, DART_OP_SUM, stat=stat)
  call check_ok(stat, 'dart_fetch_and_op (real64 SUM)')
  slot = at0
  call dart_gptr_incaddr(slot, 120)
  block
    integer(int16) :: h, hold
    integer(int8) :: b, bold
    integer(int64) :: ignored
    h = 2
    call dart_fetch_and_op(slot, h, hold, DART_OP_SUM, stat=stat)
    call check_ok(stat, 'dart_fetch_and_op (int16)')
    call dart_gptr_incaddr(slot, 8)
    b = 1
    call dart_fetch_and_op(slot, b, bold, DART_OP_BOR, stat=stat)
    call check_ok(stat, 'dart_fetch_and_op (int8 BOR)')
    call dart_gptr_incaddr(slot, 8)
    call dart_fetch_and_op(slot, 1.0_real32, x4, DART_OP_SUM, stat=stat)
    call check_ok(stat, 'dart_fetch_and_op (real32)')
    call dart_fetch_and_op(slot, 1.0_real32, x4, DART_OP_BAND, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_fetch_and_op', 'integer', &
                    'bitwise operation on real32')
    ignored = 0
    slot = g
    call dart_gptr_setunit(slot, nunits)
    call dart_fetch_and_op(slot, one64, ignored, DART_OP_SUM, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_fetch_and_op', 'out of range', &
                    'fetch_and_op on unit size')
    call check(ignored == 0, 'fetch_and_op result untouched on failure')
  end block
  call dart_barrier(DART_TEAM_ALL)
  if (me == 0) then
    call check(w32(4) == max(4 * nunits, 5), 'int32 MAX result')
    call check(wr(2) == 0.5_real64 * nunits + 1.5_real64 * nunits, 'real64 fetch_and_op sums')
  end if

  ! ---------------------------------------------------------------------------------
  call ftest_section('compare_and_swap')
  ! election: each unit tries to swap its id+1 into unit 0's int32 word 0 and int64 word 0
  ! (both reset to 0 first); exactly one wins each
  if (me == 0) then
    w32(1) = 0
    w64(1) = 0
  end if
  call dart_barrier(DART_TEAM_ALL)
  cmp32 = 0
  res32 = -1
  call dart_compare_and_swap(at0, int(me + 1, int32), cmp32, res32, stat=stat)
  call check_ok(stat, 'dart_compare_and_swap (int32)')
  slot = at0
  call dart_gptr_incaddr(slot, 16)
  cmp64 = 0
  res64 = -1
  call dart_compare_and_swap(slot, int(me + 1, int64) * 2_int64**40, cmp64, res64, stat=stat)
  call check_ok(stat, 'dart_compare_and_swap (int64)')
  k = merge(1, 0, res32 == 0)
  call dart_allreduce(k, i, DART_OP_SUM, DART_TEAM_ALL)
  call check(i == 1, 'exactly one unit won the 32-bit election')
  k = merge(1, 0, res64 == 0)
  call dart_allreduce(k, i, DART_OP_SUM, DART_TEAM_ALL)
  call check(i == 1, 'exactly one unit won the 64-bit election')
  call dart_fetch_and_op(at0, 0_int32, seen32, DART_OP_NO_OP)
  call dart_fetch_and_op(slot, 0_int64, winner64, DART_OP_NO_OP)
  call check(seen32 >= 1 .and. seen32 <= nunits, 'the 32-bit word holds a winner')
  call check(mod(winner64, 2_int64**40) == 0 .and. winner64 / 2_int64**40 >= 1, &
             'the 64-bit word holds a winner')
  slot = g
  call dart_gptr_setunit(slot, nunits)
  call dart_compare_and_swap(slot, 1_int32, 0_int32, res32, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_compare_and_swap', 'out of range', &
                  'compare_and_swap on unit size')
  call dart_barrier(DART_TEAM_ALL)

  ! ---------------------------------------------------------------------------------
  call ftest_section('locks')
  call locks()

  call dart_team_memfree(g)
  call ftest_finish()

contains

  subroutine view_own()
    type(dart_gptr) :: mine
    mine = g
    call dart_gptr_setunit(mine, me)
    call dart_local(mine, w32, [4])
    call dart_gptr_incaddr(mine, 16)
    call dart_local(mine, w64, [4])
    call dart_gptr_incaddr(mine, 32)
    call dart_local(mine, wr, [4])
    call dart_gptr_incaddr(mine, 32)
    call dart_local(mine, wz, [2])
  end subroutine view_own

  subroutine locks()
    type(dart_lock) :: lock, other
    type(dart_gptr) :: counter
    integer(int64) :: v
    logical :: got
    integer :: st, j
    character(len=256) :: m
    call check(.not. dart_lock_initialized(lock), 'a fresh dart_lock is not initialized')
    call dart_team_lock_init(DART_TEAM_ALL, lock, stat=st)
    call check(st == DART_OK .and. dart_lock_initialized(lock), 'dart_team_lock_init')
    counter = at0
    call dart_gptr_incaddr(counter, 112)
    if (me == 0) then
      v = 0
      call dart_put_blocking(counter, v)
    end if
    call dart_barrier(DART_TEAM_ALL)
    ! non-atomic read-modify-write, protected by the lock
    do j = 1, rounds
      call dart_lock_acquire(lock, stat=st)
      if (st /= DART_OK) exit
      call dart_get_blocking(v, counter)
      v = v + 1
      call dart_put_blocking(counter, v)
      call dart_lock_release(lock, stat=st)
      if (st /= DART_OK) exit
    end do
    call check_ok(st, 'lock acquire/release rounds')
    call dart_barrier(DART_TEAM_ALL)
    call dart_get_blocking(v, counter)
    call check(v == rounds * nunits, 'the lock made the increments mutually exclusive')
    ! try_acquire: unit 0 holds the lock; the others must fail to take it
    if (me == 0) call dart_lock_acquire(lock)
    call dart_barrier(DART_TEAM_ALL)
    if (me /= 0) then
      got = .true.
      call dart_lock_try_acquire(lock, got, stat=st)
      call check(st == DART_OK .and. .not. got, 'try_acquire of a held lock fails')
    else
      call dart_lock_acquire(lock, stat=st, errmsg=m)
      call check_stat(st, DART_ERR_INVAL, m, 'dart_lock_acquire', 'already holds', &
                      'acquiring a held lock twice')
    end if
    call dart_barrier(DART_TEAM_ALL)
    if (me == 0) call dart_lock_release(lock)
    call dart_barrier(DART_TEAM_ALL)
    ! one unit after the other: a free lock is taken at the first try
    do j = 0, nunits - 1
      if (j == me) then
        got = .false.
        call dart_lock_try_acquire(lock, got, stat=st)
        call check(st == DART_OK .and. got, 'try_acquire of a free lock succeeds')
        if (got) call dart_lock_release(lock)
      end if
      call dart_barrier(DART_TEAM_ALL)
    end do
    call dart_lock_release(lock, stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_lock_release', 'does not hold', &
                    'releasing a lock not held')
    call dart_barrier(DART_TEAM_ALL)
    ! bad locks and teams
    other = DART_LOCK_NULL
    call dart_lock_acquire(other, stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_lock_acquire', 'DART_LOCK_NULL', &
                    'acquire(DART_LOCK_NULL)')
    call dart_lock_try_acquire(other, got, stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_lock_try_acquire', '', 'try_acquire(DART_LOCK_NULL)')
    call dart_lock_release(other, stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_lock_release', '', 'release(DART_LOCK_NULL)')
    call dart_team_lock_init(777_DART_TEAM_KIND, other, stat=st, errmsg=m)
    call check_stat(st, DART_ERR_NOTFOUND, m, 'dart_team_lock_init', 'does not exist', &
                    'lock_init on an unknown team')
    call check(other == DART_LOCK_NULL, 'the lock is untouched on failure')
    call dart_team_lock_destroy(other, stat=st)
    call check_ok(st, 'dart_team_lock_destroy(DART_LOCK_NULL) is accepted')
    call dart_team_lock_destroy(lock, stat=st)
    call check(st == DART_OK .and. lock == DART_LOCK_NULL .and. .not. dart_lock_initialized(lock), &
               'dart_team_lock_destroy')
    call dart_barrier(DART_TEAM_ALL)
  end subroutine locks

end program ftest_atomics
