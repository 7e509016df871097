! SPDX-License-Identifier: BSD-3-Clause
! ftest_notify: notified access through module `dart`: counter blocks, dart_put_notify of
! contiguous arrays and strided sections (a halo column), SET and ADD, the handle form,
! dart_notify after plain puts, dart_notify_wait/_test/_get, and the error paths with
! stat/errmsg (a gptr that is no counter, another unit's counter, a bad op, a freed block).
program ftest_notify
  use, intrinsic :: iso_fortran_env, only: int64, real64
  use dart
  use ftest
  implicit none
  integer :: stat, right, left, lap, i
  integer, parameter :: laps = 10, nr = 5, nc = 4
  character(len=256) :: msg
  type(dart_gptr) :: cnt, buf, grid
  type(dart_handle) :: h(3)
  integer(int64), pointer :: word(:)
  real(real64), pointer :: a(:, :)
  real(real64), target :: col(nr)
  integer(int64), target :: one(1), tok(1)
  integer(int64) :: v
  logical :: flag

  call ftest_start('ftest_notify')
  right = mod(me + 1, nunits)
  left = mod(me + nunits - 1, nunits)

  ! ---------------------------------------------------------------------------------
  call ftest_section('token chain (put_notify, ADD)')
  call dart_notify_alloc(DART_TEAM_ALL, 3, cnt, stat=stat)
  call check_ok(stat, 'dart_notify_alloc')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, buf)
  call dart_local(at_unit(buf, me), word, [1])
  do lap = 0, laps - 1
    tok = 0
    if (.not. (me == 0 .and. lap == 0)) then
      call dart_notify_wait(counter(me, 0), 1_int64)
      tok = word
      call check(tok(1) == lap * nunits + me, 'token value')
    end if
    one = tok + 1
    call dart_put_notify(at_unit(buf, right), one, counter(right, 0), 1_int64, stat=stat)
    call check_ok(stat, 'dart_put_notify')
  end do
  if (me == 0) then
    call dart_notify_wait(counter(0, 0), 1_int64)
    call check(word(1) == laps * nunits, 'last token back at unit 0')
  end if
  call dart_notify_get(counter(me, 0), v)
  call check(v == 0, 'the waits consumed every notification')

  ! ---------------------------------------------------------------------------------
  call ftest_section('halo column (strided sections), SET, test')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, nr * nc, DART_TYPE_DOUBLE, grid)
  call dart_local(at_unit(grid, me), a, [nr, nc])
  do i = 1, nc
    a(:, i) = me * 100 + i
  end do
  call dart_barrier(DART_TEAM_ALL)
  ! my column 2 -> right's column nc, counter 1 set to 5 (a column is contiguous here)
  col = a(:, 2)
  call dart_put_notify(offset(at_unit(grid, right), nr * (nc - 1)), a(:, 2), counter(right, 1), &
                       5_int64, DART_NOTIFY_SET, stat=stat)
  call check_ok(stat, 'dart_put_notify (SET)')
  flag = .false.
  do while (.not. flag)
    call dart_notify_test(counter(me, 1), 5_int64, flag)
  end do
  call check(all(a(:, nc) == left * 100 + 2), 'column from the left neighbour')
  call dart_barrier(DART_TEAM_ALL)
  ! a strided section: my row 1 (nc elements nr apart) -> right's row nr, strided there too
  call dart_put_notify(offset(at_unit(grid, right), nr - 1), a(1, :), counter(right, 1), &
                       1_int64, remote_type=row_type(), stat=stat)
  call check_ok(stat, 'dart_put_notify (strided section)')
  call dart_notify_wait(counter(me, 1), 1_int64)
  call check(a(nr, 1) == left * 100 + 1 .and. a(nr, 3) == left * 100 + 3, 'row from the left')

  ! ---------------------------------------------------------------------------------
  call ftest_section('handles and dart_notify')
  call dart_barrier(DART_TEAM_ALL)
  do i = 1, 3
    call dart_put_notify_handle(offset(at_unit(grid, right), i - 1), col(i:i), counter(right, 2), &
                                1_int64, h(i), stat=stat)
    call check_ok(stat, 'dart_put_notify_handle')
  end do
  call dart_waitall(h)
  call dart_notify_wait(counter(me, 2), 3_int64)
  call check(all(a(1:3, 1) == left * 100 + 2), 'data of three put_notify handles')
  call dart_barrier(DART_TEAM_ALL)
  one = 1000 + me
  call dart_put(at_unit(buf, right), one)
  call dart_notify(counter(right, 2), 2_int64, stat=stat)
  call check_ok(stat, 'dart_notify')
  call dart_notify_wait(counter(me, 2), 2_int64)
  call check(word(1) == 1000 + left, 'dart_notify after a plain dart_put')

  ! ---------------------------------------------------------------------------------
  call ftest_section('errors')
  call dart_notify_wait(at_unit(buf, me), 1_int64, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_notify_wait', 'not a notification counter', &
                  'wait on ordinary memory')
  call dart_notify(counter(right, 0), 1_int64, op=7, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_notify', 'DART_NOTIFY_SET', 'bad op')
  if (nunits > 1) then
    call dart_notify_test(counter(right, 0), 1_int64, flag, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_notify_test', 'own', 'another unit''s counter')
  end if
  call dart_notify_free(buf, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_notify_free', 'not a notification counter', &
                  'notify_free of ordinary memory')
  call dart_barrier(DART_TEAM_ALL)
  call dart_notify_free(cnt, stat=stat)
  call check_ok(stat, 'dart_notify_free')
  call dart_notify_get(counter(me, 0), v, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_notify_get', 'does not exist', 'freed block')
  call dart_barrier(DART_TEAM_ALL)
  call dart_team_memfree(grid)
  call dart_team_memfree(buf)
  call ftest_finish()

contains

  type(dart_gptr) function at_unit(g, u)
    type(dart_gptr), intent(in) :: g
    integer, intent(in) :: u
    at_unit = g
    call dart_gptr_setunit(at_unit, u)
  end function at_unit

  !> g advanced by k 8-byte elements.
  type(dart_gptr) function offset(g, k)
    type(dart_gptr), intent(in) :: g
    integer, intent(in) :: k
    offset = g
    call dart_gptr_incaddr(offset, 8 * k)
  end function offset

  type(dart_gptr) function counter(u, k)
    integer, intent(in) :: u, k
    counter = offset(at_unit(cnt, u), k)
  end function counter

  !> A row of the nr x nc column-major block: nc elements, nr apart (created once).
  integer(DART_DATATYPE_KIND) function row_type()
    integer(DART_DATATYPE_KIND), save :: t = DART_TYPE_UNDEFINED
    if (t == DART_TYPE_UNDEFINED) call dart_type_create_strided(DART_TYPE_DOUBLE, nr, 1, t)
    row_type = t
  end function row_type

end program ftest_notify
