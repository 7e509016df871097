! SPDX-License-Identifier: BSD-3-Clause
! ftest_errors: the error model of the Fortran module. Before dart_init every wrapper
! (typed, section and C-style forms alike) returns DART_ERR_NOTINIT in stat with errmsg
! "<function>: ..."; after dart_init: stat is DART_OK on success and errmsg is then left
! alone, errmsg is truncated to its length, a failure with stat= does not abort, the
! core's detail text matches errmsg, outputs are written only on success, and
! dart_strerror knows every code. (The abort path without stat= is fprog_abort.)
program ftest_errors
  use, intrinsic :: iso_fortran_env, only: int16, int32, int64, real64
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm
  use dart
  use ftest
  implicit none
  integer :: stat, n, id, flags, i
  integer(int64) :: n8
  character(len=256) :: msg
  character(len=12) :: short
  type(dart_gptr) :: g, t
  type(dart_group) :: grp
  type(dart_handle) :: h, hs(2)
  type(dart_lock) :: lock
  integer(DART_TEAM_KIND) :: team
  integer(DART_DATATYPE_KIND) :: dt
  integer(DART_OPERATION_KIND) :: op
  type(c_ptr) :: addr
  type(MPI_Comm) :: comm
  real(real64), target :: x(4), m(3, 3)
  real(real64), pointer :: p(:)
  integer(int32) :: iv(2), ir
  integer(int64) :: lv, lr
  logical :: done
  character(len=64) :: cur
  integer, parameter :: codes(6) = [0, 1, 2, 3, 5, 999]

  call ftest_start('ftest_errors', init_dart=.false.)

  ! ---------------------------------------------------------------------------------
  call ftest_section('before dart_init')
  x = 1
  m = 1
  g = DART_GPTR_NULL
  call dart_gptr_make(0, 0, 1_int16, DART_TEAM_ALL, 0_int64, g)   ! works without DART
  call expect_notinit('dart_myid');        call dart_myid(id, stat=stat, errmsg=msg);                 call got()
  call expect_notinit('dart_size');        call dart_size(n8, stat=stat, errmsg=msg);                 call got()
  call expect_notinit('dart_team_myid');   call dart_team_myid(DART_TEAM_ALL, id, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_team_size');   call dart_team_size(DART_TEAM_ALL, n, stat=stat, errmsg=msg);  call got()
  call expect_notinit('dart_team_comm');   call dart_team_comm(DART_TEAM_ALL, comm, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_team_get_group'); call dart_team_get_group(DART_TEAM_ALL, grp, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_team_create'); call dart_team_create(DART_TEAM_ALL, grp, team, stat=stat, errmsg=msg); call got()
  team = 1
  call expect_notinit('dart_team_destroy'); call dart_team_destroy(team, stat=stat, errmsg=msg);      call got()
  call expect_notinit('dart_group_create'); call dart_group_create(grp, stat=stat, errmsg=msg);       call got()
  call expect_notinit('dart_memalloc');    call dart_memalloc(4, DART_TYPE_INT, t, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_memfree');     call dart_memfree(g, stat=stat, errmsg=msg);               call got()
  call expect_notinit('dart_team_memalloc_aligned')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, t, stat=stat, errmsg=msg);         call got()
  call expect_notinit('dart_team_memfree'); call dart_team_memfree(g, stat=stat, errmsg=msg);         call got()
  call expect_notinit('dart_team_memregister'); call dart_team_memregister(DART_TEAM_ALL, x, t, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_team_memderegister'); call dart_team_memderegister(g, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_gptr_getaddr'); call dart_gptr_getaddr(g, addr, stat=stat, errmsg=msg);  call got()
  call expect_notinit('dart_gptr_setaddr'); call dart_gptr_setaddr(g, c_loc(x), stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_gptr_getflags'); call dart_gptr_getflags(g, flags, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_gptr_getaddr_node'); call dart_gptr_getaddr_node(g, addr, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_gptr_segment_size'); call dart_gptr_segment_size(g, n8, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_local');       call dart_local(g, p, [4], stat=stat, errmsg=msg);         call got()
  call expect_notinit('dart_put');         call dart_put(g, x, stat=stat, errmsg=msg);                call got()
  call expect_notinit('dart_get');         call dart_get(x, g, stat=stat, errmsg=msg);                call got()
  call expect_notinit('dart_put_blocking'); call dart_put_blocking(g, x, stat=stat, errmsg=msg);      call got()
  call expect_notinit('dart_put_blocking'); call dart_put_blocking(g, m(1, :), stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_get_blocking'); call dart_get_blocking(x, g, 4, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_put_handle');  call dart_put_handle(g, x, h, stat=stat, errmsg=msg);      call got()
  call expect_notinit('dart_get_handle');  call dart_get_handle(x, g, h, stat=stat, errmsg=msg);      call got()
  call expect_notinit('dart_wait');        call dart_wait(h, stat=stat, errmsg=msg);                  call got()
  call expect_notinit('dart_wait_local');  call dart_wait_local(h, stat=stat, errmsg=msg);            call got()
  call expect_notinit('dart_waitall');     call dart_waitall(hs, stat=stat, errmsg=msg);              call got()
  call expect_notinit('dart_waitall_local'); call dart_waitall_local(hs, stat=stat, errmsg=msg);      call got()
  call expect_notinit('dart_test');        call dart_test(h, done, stat=stat, errmsg=msg);            call got()
  call expect_notinit('dart_test_local');  call dart_test_local(h, done, stat=stat, errmsg=msg);      call got()
  call expect_notinit('dart_testall');     call dart_testall(hs, done, stat=stat, errmsg=msg);        call got()
  call expect_notinit('dart_testall_local'); call dart_testall_local(hs, done, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_handle_free'); call dart_handle_free(h, stat=stat, errmsg=msg);           call got()
  call expect_notinit('dart_flush');       call dart_flush(g, stat=stat, errmsg=msg);                 call got()
  call expect_notinit('dart_flush_all');   call dart_flush_all(g, stat=stat, errmsg=msg);             call got()
  call expect_notinit('dart_flush_local'); call dart_flush_local(g, stat=stat, errmsg=msg);           call got()
  call expect_notinit('dart_flush_local_all'); call dart_flush_local_all(g, stat=stat, errmsg=msg);   call got()
  call expect_notinit('dart_barrier');     call dart_barrier(DART_TEAM_ALL, stat=stat, errmsg=msg);   call got()
  call expect_notinit('dart_bcast');       call dart_bcast(x, 0, DART_TEAM_ALL, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_allreduce');   call dart_allreduce(iv, iv, DART_OP_SUM, DART_TEAM_ALL, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_send');        call dart_send(x, 1, 0, stat=stat, errmsg=msg);            call got()
  call expect_notinit('dart_recv');        call dart_recv(x, 1, 0, stat=stat, errmsg=msg);            call got()
  call expect_notinit('dart_accumulate');  call dart_accumulate(g, x, DART_OP_SUM, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_fetch_and_op'); call dart_fetch_and_op(g, 1_int64, lr, DART_OP_SUM, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_compare_and_swap'); call dart_compare_and_swap(g, 1_int32, 0_int32, ir, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_team_lock_init'); call dart_team_lock_init(DART_TEAM_ALL, lock, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_team_lock_destroy'); call dart_team_lock_destroy(lock, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_lock_acquire'); call dart_lock_acquire(lock, stat=stat, errmsg=msg);     call got()
  call expect_notinit('dart_lock_try_acquire'); call dart_lock_try_acquire(lock, done, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_lock_release'); call dart_lock_release(lock, stat=stat, errmsg=msg);     call got()
  call expect_notinit('dart_group_addmember'); call dart_group_addmember(grp, 0, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_group_size');  call dart_group_size(grp, n, stat=stat, errmsg=msg);       call got()
  call expect_notinit('dart_accumulate_blocking_local'); call dart_accumulate_blocking_local(g, m(:, 2), DART_OP_SUM, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_scatter');     call dart_scatter(x, x(1:1), 0, DART_TEAM_ALL, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_sendrecv');    call dart_sendrecv(x, 1, 0, m, 1, 0, stat=stat, errmsg=msg); call got()
  call expect_notinit('dart_unit_node');   call dart_unit_node(0, n, stat=stat, errmsg=msg);          call got()
  call expect_notinit('dart_type_create_strided'); call dart_type_create_strided(DART_TYPE_INT, 2, 1, dt, stat=stat, errmsg=msg); call got()
  dt = 12345
  call expect_notinit('dart_type_destroy'); call dart_type_destroy(dt, stat=stat, errmsg=msg);        call got()
  op = 12345
  call expect_notinit('dart_op_destroy');  call dart_op_destroy(op, stat=stat, errmsg=msg);           call got()
  call expect_notinit('dart_node_count');  call dart_node_count(n, stat=stat, errmsg=msg);            call got()
  ! the accessors work without DART
  call check(dart_gptr_unit(g) == 0 .and. dart_gptr_segid(g) == 1 .and. dart_gptr_teamid(g) == 0, &
             'gptr accessors before dart_init')
  call check(.not. dart_initialized(), 'still not initialized')

  ! ---------------------------------------------------------------------------------
  call dart_init()
  call ftest_locality()
  call ftest_section('after dart_init')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_DOUBLE, g)

  ! success: stat = DART_OK, errmsg untouched
  msg = 'untouched'
  stat = -5
  call dart_put_blocking(g, x, stat=stat, errmsg=msg)
  call check(stat == DART_OK .and. msg == 'untouched', 'success: stat 0 and errmsg untouched')
  msg = 'untouched'
  call dart_barrier(DART_TEAM_ALL, errmsg=msg)
  call check(msg == 'untouched', 'success without stat: errmsg untouched')

  ! failure with stat: no abort, errmsg = "<function>: <detail>", detail = the core's
  t = g
  call dart_gptr_setunit(t, nunits)
  call dart_put_blocking(t, x, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_put_blocking', 'out of range', 'put to unit size')
  call check(index(msg, 'unit ' // itoa(nunits) // ' out of range [0, ' // itoa(nunits) // ')') > 0, &
             'the detail names the unit and the range: ' // trim(msg))
  call check(trim(msg) == dart_error_detail(), 'errmsg equals dart_error_detail(): "' // &
             trim(msg) // '" vs "' // dart_error_detail() // '"')
  ! truncation
  short = ''
  call dart_put_blocking(t, x, stat=stat, errmsg=short)
  call check(stat == DART_ERR_INVAL .and. short == 'dart_put_blo', 'errmsg truncated to its length')
  ! stat without errmsg
  call dart_put_blocking(t, x, stat=stat)
  call check(stat == DART_ERR_INVAL, 'stat without errmsg')
  ! outputs untouched on failure
  id = -99
  call dart_team_myid(DART_TEAM_NULL, id, stat=stat)
  call check(stat == DART_ERR_INVAL .and. id == -99, 'dart_team_myid output untouched on failure')
  n = -99
  call dart_team_size(4321_DART_TEAM_KIND, n, stat=stat)
  call check(stat == DART_ERR_NOTFOUND .and. n == -99, 'dart_team_size output untouched on failure')
  lv = -99
  call dart_fetch_and_op(t, 1_int64, lv, DART_OP_SUM, stat=stat)
  call check(stat == DART_ERR_INVAL .and. lv == -99, 'fetch_and_op result untouched on failure')
  x = -99
  call dart_get_blocking(x, t, stat=stat)
  call check(stat == DART_ERR_INVAL .and. all(x == -99), 'get_blocking dest untouched on failure')
  ! an error of the Fortran layer (not of the core) also goes to errmsg
  call dart_get_blocking(x(4:1:-1), g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_get_blocking', 'negative', 'reversed section')
  call dart_memalloc(-2_int64, DART_TYPE_INT, t, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_memalloc', 'negative', 'memalloc(-2)')

  ! codes and their text
  call check(DART_OK == 0 .and. DART_PENDING == 1 .and. DART_ERR_INVAL == 2 .and. &
             DART_ERR_NOTFOUND == 3 .and. DART_ERR_NOTINIT == 4 .and. DART_ERR_NOMEM == 5 .and. &
             DART_ERR_OTHER == 999, 'the DART 3.2 code values')
  do i = 1, 6
    call check(len(dart_strerror(codes(i))) > 3 .and. dart_strerror(codes(i)) /= &
               'unknown DART return code', 'dart_strerror of every code')
  end do
  call check(dart_strerror(DART_ERR_NOMEM) == 'out of memory', 'dart_strerror(DART_ERR_NOMEM)')

  call dart_team_memfree(g)
  call ftest_finish()

contains

  subroutine expect_notinit(fname)
    character(len=*), intent(in) :: fname
    call ftest_section('before dart_init: ' // fname)
    cur = fname
    stat = -12345
    msg = ''
  end subroutine expect_notinit

  !> The call just made must have failed with DART_ERR_NOTINIT, errmsg naming it.
  subroutine got()
    call check_stat(stat, DART_ERR_NOTINIT, msg, trim(cur), 'not initialized', trim(cur))
  end subroutine got

end program ftest_errors
