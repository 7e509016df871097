! SPDX-License-Identifier: BSD-3-Clause
! ftest_onesided: put/get in every form (flush-completed, blocking, handles) for every
! element type, array sections (halo rows of 2D arrays, faces and blocks of 3D arrays,
! strided 1D, complex rows, rank 4) through strided/indexed DART types, remote datatypes,
! every completion call, the C-style variants, the datatype calls and the errors.
! The body runs on DART_TEAM_ALL and again on a one-unit team of each unit.
program ftest_onesided
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use, intrinsic :: iso_c_binding
  use dart
  use ftest
  implicit none
  integer(DART_TEAM_KIND) :: solo

  call ftest_start('ftest_onesided')

  call ftest_section('team all')
  call body(DART_TEAM_ALL)

  ! a team of one unit (the caller), for each unit
  solo = ftest_solo_team()
  call ftest_section('one-unit team')
  call body(solo)
  call dart_team_destroy(solo)

  call ftest_section('datatypes')
  call datatypes()
  call ftest_finish()

contains

  ! Value of element (i, j, k) of unit u's test arrays.
  elemental real(real64) function fval(u, i, j, k)
    integer, intent(in) :: u, i, j, k
    fval = 10000.0_real64 * u + 100 * i + 10 * j + k
  end function fval

  subroutine body(team)
    integer(DART_TEAM_KIND), intent(in) :: team
    integer :: tme, tsize, st
    type(dart_gptr) :: g
    call dart_team_myid(team, tme)
    call dart_team_size(team, tsize)
    call dart_team_memalloc_aligned(team, 8192, DART_TYPE_BYTE, g, stat=st)
    call check_ok(st, 'dart_team_memalloc_aligned')
    call rt_int8(team, g, tme, tsize)
    call rt_int16(team, g, tme, tsize)
    call rt_int32(team, g, tme, tsize)
    call rt_int64(team, g, tme, tsize)
    call rt_real32(team, g, tme, tsize)
    call rt_real64(team, g, tme, tsize)
    call rt_complex32(team, g, tme, tsize)
    call rt_complex64(team, g, tme, tsize)
    call sections(team, g, tme, tsize)
    call completion(team, g, tme, tsize)
    call cstyle(team, g, tme, tsize)
    call errors(team, g, tme, tsize)
    call dart_team_memfree(g)
  end subroutine body

  ! ---------------------------------------------------------------------------------
  ! sections: put a section of my array into my right neighbour's contiguous memory,
  ! check what my left neighbour put into mine, get the section back into a zeroed
  ! array and check that exactly the section changed.
  ! ---------------------------------------------------------------------------------
  subroutine sections(team, g, tme, tsize)
    integer(DART_TEAM_KIND), intent(in) :: team
    type(dart_gptr), intent(in) :: g
    integer, intent(in) :: tme, tsize
    real(real64), target :: a(6, 5), al(6, 5), b(6, 5)
    real(real64), target :: c(4, 3, 5), cl(4, 3, 5), d(4, 3, 5)
    real(real64), target :: q(2, 3, 2, 3), ql(2, 3, 2, 3), r(2, 3, 2, 3)
    complex(real64), target :: z(4, 4), zl(4, 4), zb(4, 4)
    integer(int32), target :: v(10), vl(10), vb(10)
    real(real64), pointer :: view(:)
    complex(real64), pointer :: zview(:)
    integer(int32), pointer :: iview(:)
    type(dart_gptr) :: mine, rg
    type(dart_handle) :: h
    integer :: i, j, k, l, left, right, st, ncache
    integer(int64) :: entries, held
    right = mod(tme + 1, tsize)
    left = mod(tme - 1 + tsize, tsize)
    mine = g
    call dart_gptr_setunit(mine, tme)
    rg = g
    call dart_gptr_setunit(rg, right)
    call dart_local(mine, view, [1024])
    call dart_local(mine, zview, [512])
    call dart_local(mine, iview, [2048])
    forall (i = 1:6, j = 1:5) a(i, j) = fval(tme, i, j, 0)
    forall (i = 1:6, j = 1:5) al(i, j) = fval(left, i, j, 0)
    forall (i = 1:4, j = 1:3, k = 1:5) c(i, j, k) = fval(tme, i, j, k)
    forall (i = 1:4, j = 1:3, k = 1:5) cl(i, j, k) = fval(left, i, j, k)
    forall (i = 1:2, j = 1:3, k = 1:2, l = 1:3) q(i, j, k, l) = fval(tme, i, j, k) + 0.5 * l
    forall (i = 1:2, j = 1:3, k = 1:2, l = 1:3) ql(i, j, k, l) = fval(left, i, j, k) + 0.5 * l
    forall (i = 1:4, j = 1:4) z(i, j) = cmplx(fval(tme, i, j, 0), -i, real64)
    forall (i = 1:4, j = 1:4) zl(i, j) = cmplx(fval(left, i, j, 0), -i, real64)
    v = [(100 * tme + i, i = 1, 10)]
    vl = [(100 * left + i, i = 1, 10)]

    ! -- 2D halo row a(3,:) (stride 6) -------------------------------------------------
    call dart_put_blocking(rg, a(3, :), stat=st)
    call check_ok(st, 'put_blocking of a halo row a(3,:)')
    call dart_barrier(team)
    call check(all(view(1:5) == al(3, :)), 'halo row arrived contiguous')
    b = 0
    call dart_get_blocking(b(4, :), rg, stat=st)
    call check(st == DART_OK .and. all(b(4, :) == a(3, :)), 'get_blocking into a halo row b(4,:)')
    call check(count(b /= 0) == 5, 'only the row of b changed')
    call dart_barrier(team)

    ! -- a column (contiguous) and a 2D sub-block a(2:4, 2:3) (blocks of 3, stride 6) ---
    call dart_put_blocking(rg, a(2:4, 2:3), stat=st)
    call check_ok(st, 'put_blocking of a sub-block a(2:4,2:3)')
    call dart_barrier(team)
    call check(all(view(1:6) == reshape(al(2:4, 2:3), [6])), 'sub-block arrived contiguous')
    b = 0
    call dart_get_blocking(b(3:5, 4:5), rg, stat=st)
    call check(st == DART_OK .and. all(b(3:5, 4:5) == a(2:4, 2:3)) .and. count(b /= 0) == 6, &
               'get_blocking into a sub-block b(3:5,4:5)')
    call dart_barrier(team)

    ! -- every other element, non-blocking put + flush_all; get + flush_local_all --------
    call dart_put(rg, v(1:10:2), stat=st)
    call dart_flush_all(rg, stat=st)
    call check_ok(st, 'put of v(1:10:2) + flush_all')
    call dart_barrier(team)
    call check(all(iview(1:5) == vl(1:10:2)), 'strided 1D section arrived')
    vb = 0
    call dart_get(vb(2:10:2), rg, stat=st)
    call dart_flush_local_all(rg, stat=st)
    call check(st == DART_OK .and. all(vb(2:10:2) == v(1:10:2)) .and. all(vb(1:9:2) == 0), &
               'get into vb(2:10:2) + flush_local_all')
    call dart_barrier(team)

    ! -- 3D faces ------------------------------------------------------------------------
    ! c(1,:,:): one strided type (stride 4) after merging the two outer dimensions
    call dart_put_blocking(rg, c(1, :, :), stat=st)
    call check_ok(st, 'put of the face c(1,:,:)')
    call dart_barrier(team)
    call check(all(view(1:15) == reshape(cl(1, :, :), [15])), 'face c(1,:,:) arrived')
    call dart_barrier(team)
    ! c(:,2,:): blocks of 4, stride 12
    call dart_put_handle(rg, c(:, 2, :), h, stat=st)
    call dart_wait(h)
    call check_ok(st, 'put_handle of the face c(:,2,:)')
    call dart_barrier(team)
    call check(all(view(1:20) == reshape(cl(:, 2, :), [20])), 'face c(:,2,:) arrived')
    d = 0
    call dart_get_handle(d(:, 3, :), rg, h, stat=st)
    call dart_wait_local(h)
    call check(st == DART_OK .and. all(d(:, 3, :) == c(:, 2, :)) .and. count(d /= 0) == 20, &
               'get_handle into the face d(:,3,:)')
    call dart_barrier(team)
    ! c(:,:,3): contiguous
    call dart_put_blocking(rg, c(:, :, 3), stat=st)
    call dart_barrier(team)
    call check(st == DART_OK .and. all(view(1:12) == reshape(cl(:, :, 3), [12])), &
               'face c(:,:,3) arrived')
    call dart_barrier(team)
    ! interior of a face, c(2, 2:3, 2:4): an indexed type (6 blocks of 1)
    call dart_put_blocking(rg, c(2, 2:3, 2:4), stat=st)
    call check_ok(st, 'put of the interior face c(2,2:3,2:4)')
    call dart_barrier(team)
    call check(all(view(1:6) == reshape(cl(2, 2:3, 2:4), [6])), 'interior face arrived')
    d = 0
    call dart_get_blocking(d(3, 1:2, 3:5), rg, stat=st)
    call check(st == DART_OK .and. all(d(3, 1:2, 3:5) == c(2, 2:3, 2:4)) .and. &
               count(d /= 0) == 6, 'get into an interior face')
    call dart_barrier(team)
    ! 3D sub-block c(2:3, 1:2, 2:3): an indexed type (4 blocks of 2)
    call dart_put_blocking(rg, c(2:3, 1:2, 2:3), stat=st)
    call dart_barrier(team)
    call check(st == DART_OK .and. all(view(1:8) == reshape(cl(2:3, 1:2, 2:3), [8])), &
               '3D sub-block arrived')
    call dart_barrier(team)

    ! -- rank 4: q(1,:,2,:) ------------------------------------------------------------
    call dart_put_blocking(rg, q(1, :, 2, :), stat=st)
    call check_ok(st, 'put of a rank-4 section q(1,:,2,:)')
    call dart_barrier(team)
    call check(all(view(1:9) == reshape(ql(1, :, 2, :), [9])), 'rank-4 section arrived')
    r = 0
    call dart_get_blocking(r(2, :, 1, :), rg, stat=st)
    call check(st == DART_OK .and. all(r(2, :, 1, :) == q(1, :, 2, :)) .and. count(r /= 0) == 9, &
               'get into a rank-4 section')
    call dart_barrier(team)

    ! -- complex row z(2,:): blocks of 2 reals (re, im), stride 8 ----------------------
    call dart_put_blocking(rg, z(2, :), stat=st)
    call check_ok(st, 'put of a complex row z(2,:)')
    call dart_barrier(team)
    call check(all(zview(1:4) == zl(2, :)), 'complex row arrived')
    zb = 0
    call dart_get_blocking(zb(:, 3), rg, stat=st)
    call check(st == DART_OK .and. all(zb(:, 3) == z(2, :)), 'complex row into a column')
    zb = 0
    call dart_get_blocking(zb(4, :), rg, stat=st)
    call check(st == DART_OK .and. all(zb(4, :) == z(2, :)) .and. count(zb /= 0) == 4, &
               'complex row into a row')
    call dart_barrier(team)

    ! -- the section types are cached: the same layouts again create nothing new -----
    ncache = dart_section_type_cache_size()
    call dart_put_blocking(rg, a(5, :))
    call dart_put_blocking(rg, c(4, :, :))
    call dart_flush(rg)
    call check(dart_section_type_cache_size() == ncache, 'section types come from the cache')
    ! ... kept by the core's layout engine, every one handed back after its transfer
    call dart_type_layout_cache_stats(entries, held, stat=st)
    call check(st == DART_OK .and. entries == ncache .and. entries > 0 .and. held == 0, &
               'the layout cache holds the section types, none still held')
    call dart_barrier(team)
  end subroutine sections

  ! ---------------------------------------------------------------------------------
  ! completion calls
  ! ---------------------------------------------------------------------------------
  subroutine completion(team, g, tme, tsize)
    integer(DART_TEAM_KIND), intent(in) :: team
    type(dart_gptr), intent(in) :: g
    integer, intent(in) :: tme, tsize
    real(real64), target, asynchronous :: x(8), y(8), w(4, 8)
    real(real64), pointer :: view(:)
    type(dart_gptr) :: mine, rg, t
    type(dart_handle) :: h, hs(4), none(0)
    logical :: done
    integer :: i, left, right, st, spins
    right = mod(tme + 1, tsize)
    left = mod(tme - 1 + tsize, tsize)
    mine = g
    call dart_gptr_setunit(mine, tme)
    rg = g
    call dart_gptr_setunit(rg, right)
    call dart_local(mine, view, [1024])
    x = [(fval(tme, i, 0, 0), i = 1, 8)]

    ! two handle puts to the same target, then two waits (the IJNC 2017 pattern)
    t = rg
    call dart_put_handle(t, x(1:4), hs(1), stat=st)
    call dart_gptr_incaddr(t, 32)
    call dart_put_handle(t, x(5:8), hs(2), stat=st)
    call dart_wait(hs(1), stat=st)
    call dart_wait(hs(2), stat=st)
    call check(st == DART_OK .and. hs(1) == DART_HANDLE_NULL .and. hs(2) == DART_HANDLE_NULL, &
               'two handle puts, two waits')
    call dart_barrier(team)
    call check(all(view(1:8) == [(fval(left, i, 0, 0), i = 1, 8)]), 'both puts arrived')
    call dart_barrier(team)

    ! test until finished
    y = 0
    call dart_get_handle(y, rg, h, stat=st)
    done = .false.
    spins = 0
    do while (.not. done .and. spins < 1000000)
      call dart_test(h, done, stat=st)
      spins = spins + 1
    end do
    call check(st == DART_OK .and. done .and. h == DART_HANDLE_NULL .and. all(y == x), &
               'get_handle + dart_test')
    y = 0
    call dart_get_handle(y, rg, h)
    done = .false.
    do while (.not. done)
      call dart_test_local(h, done, stat=st)
      if (st /= DART_OK) exit
    end do
    call check(st == DART_OK .and. all(y == x), 'get_handle + dart_test_local')

    ! arrays of handles (a non-contiguous section of w for each get)
    w = 0
    do i = 1, 4
      call dart_get_handle(w(i, :), rg, hs(i))
    end do
    call dart_waitall(hs, stat=st)
    call check(st == DART_OK .and. all(hs == DART_HANDLE_NULL), 'dart_waitall')
    do i = 1, 4
      call check(all(w(i, :) == x), 'dart_waitall: rows of w filled')
    end do
    w = 0
    do i = 1, 4
      call dart_get_handle(w(:, 2 * i), rg, hs(i), stat=st)
    end do
    call dart_waitall_local(hs, stat=st)
    call check(st == DART_OK .and. all(w(:, 2) == x(1:4)) .and. all(w(:, 8) == x(1:4)), &
               'dart_waitall_local')
    do i = 1, 4
      call dart_put_handle(rg, x, hs(i))
    end do
    call dart_testall(hs, done, stat=st)
    call check(st == DART_OK .and. done .and. all(hs == DART_HANDLE_NULL), 'dart_testall')
    do i = 1, 4
      call dart_put_handle(rg, x, hs(i))
    end do
    call dart_testall_local(hs, done, stat=st)
    call check(st == DART_OK .and. done, 'dart_testall_local')
    call dart_flush(rg)
    ! empty sets and null handles
    call dart_waitall(none, stat=st)
    call check_ok(st, 'dart_waitall of no handles')
    done = .false.
    call dart_testall(none, done, stat=st)
    call check(st == DART_OK .and. done, 'dart_testall of no handles is finished')
    h = DART_HANDLE_NULL
    call dart_wait(h, stat=st)
    call check_ok(st, 'dart_wait(DART_HANDLE_NULL)')
    call dart_wait_local(h, stat=st)
    call check_ok(st, 'dart_wait_local(DART_HANDLE_NULL)')
    ! free a handle, complete by a flush
    call dart_put_handle(rg, x, h)
    call dart_handle_free(h, stat=st)
    call check(st == DART_OK .and. h == DART_HANDLE_NULL, 'dart_handle_free')
    call dart_flush(rg, stat=st)
    call check_ok(st, 'dart_flush after dart_handle_free')
    call dart_put(rg, x, stat=st)
    call dart_flush_local(rg, stat=st)
    call dart_flush(rg, stat=st)
    call check_ok(st, 'dart_put + flush_local + flush')
    call dart_barrier(team)
    call check(all(view(1:8) == [(fval(left, i, 0, 0), i = 1, 8)]), 'data after all forms')
    call dart_barrier(team)
  end subroutine completion

  ! ---------------------------------------------------------------------------------
  ! C-style variants (address, nelem, src_type, dst_type), nelem of both kinds
  ! ---------------------------------------------------------------------------------
  subroutine cstyle(team, g, tme, tsize)
    integer(DART_TEAM_KIND), intent(in) :: team
    type(dart_gptr), intent(in) :: g
    integer, intent(in) :: tme, tsize
    real(real64), target :: x(10), y(10), m(4, 5)
    real(real64), pointer :: view(:)
    integer(DART_DATATYPE_KIND) :: col
    type(dart_gptr) :: mine, rg
    type(dart_handle) :: h
    integer :: i, left, right, st
    integer(int64) :: n8
    right = mod(tme + 1, tsize)
    left = mod(tme - 1 + tsize, tsize)
    mine = g
    call dart_gptr_setunit(mine, tme)
    rg = g
    call dart_gptr_setunit(rg, right)
    call dart_local(mine, view, [1024])
    x = [(fval(tme, i, 1, 0), i = 1, 10)]
    call dart_put_blocking(rg, x, 10, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, stat=st)
    call check_ok(st, 'C-style put_blocking (default integer nelem)')
    call dart_barrier(team)
    call check(all(view(1:10) == [(fval(left, i, 1, 0), i = 1, 10)]), 'C-style put data')
    y = 0
    call dart_get_blocking(y, rg, 10_c_size_t, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, stat=st)
    call check(st == DART_OK .and. all(y == x), 'C-style get_blocking (c_size_t nelem)')
    y = 0
    call dart_get(y, rg, 5, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, stat=st)
    call dart_flush(rg)
    call check(st == DART_OK .and. all(y(1:5) == x(1:5)) .and. all(y(6:) == 0), 'C-style get')
    call dart_put_handle(rg, x, 10_c_size_t, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, h, stat=st)
    call dart_wait(h)
    call check_ok(st, 'C-style put_handle')
    y = 0
    call dart_get_handle(y, rg, 10, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, h, stat=st)
    call dart_wait(h)
    call check(st == DART_OK .and. all(y == x), 'C-style get_handle')
    ! a strided local layout, C style: row 2 of m as (start element, strided type)
    m = reshape([(fval(tme, i, 2, 0), i = 1, 20)], [4, 5])
    call dart_type_create_strided(DART_TYPE_DOUBLE, 4, 1, col, stat=st)
    call check_ok(st, 'dart_type_create_strided')
    call dart_barrier(team)
    call dart_put(rg, m(2, 1), 5_c_size_t, col, DART_TYPE_DOUBLE, stat=st)
    call dart_flush(rg)
    call check_ok(st, 'C-style put with a strided source type')
    call dart_barrier(team)
    call check(all(view(1:5) == [(fval(left, 4 * i + 2, 2, 0), i = 0, 4)]), &
               'C-style strided put data')
    call dart_type_destroy(col)
    call dart_barrier(team)
    ! the same row through the layout engine: 5 elements at a stride of 4
    call dart_type_from_layout(DART_TYPE_DOUBLE, [5_int64], [4_int64], col, n8, stat=st)
    call check(st == DART_OK .and. n8 == 5 .and. col /= DART_TYPE_DOUBLE, &
               'dart_type_from_layout of a matrix row')
    call dart_put(rg, m(3, 1), 5_c_size_t, col, DART_TYPE_DOUBLE, stat=st)
    call dart_type_layout_release(col, stat=st)
    call check_ok(st, 'dart_type_layout_release right after the put that uses the type')
    call dart_flush(rg)
    call dart_barrier(team)
    call check(all(view(1:5) == [(fval(left, 4 * i + 3, 2, 0), i = 0, 4)]), &
               'C-style put with a type of dart_type_from_layout')
    ! contiguous layouts are the element type itself
    call dart_type_from_layout(DART_TYPE_DOUBLE, [4_int64, 5_int64], [1_int64, 4_int64], col, &
                               n8, stat=st)
    call check(st == DART_OK .and. col == DART_TYPE_DOUBLE .and. n8 == 20, &
               'dart_type_from_layout of a whole matrix')
    call dart_barrier(team)
  end subroutine cstyle

  ! ---------------------------------------------------------------------------------
  ! errors of the one-sided calls
  ! ---------------------------------------------------------------------------------
  subroutine errors(team, g, tme, tsize)
    integer(DART_TEAM_KIND), intent(in) :: team
    type(dart_gptr), intent(in) :: g
    integer, intent(in) :: tme, tsize
    real(real64), target :: x(4), m(4, 4)
    integer(int32), target :: iv(4)
    type(dart_gptr) :: bad, past, freed
    type(dart_handle) :: h
    character(len=256) :: msg
    integer :: st
    x = 1
    m = 1
    iv = 1
    ! unit out of range
    bad = g
    call dart_gptr_setunit(bad, tsize)
    call dart_put_blocking(bad, x, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_blocking', 'out of range', 'put to unit size')
    call dart_get_blocking(x, bad, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_blocking', 'out of range', 'get from unit size')
    call dart_put(bad, m(1, :), stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put', 'out of range', 'put(section) to unit size')
    call dart_get(m(:, 2), bad, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get', 'out of range', 'get to unit size')
    h = DART_HANDLE_NULL
    call dart_put_handle(bad, x, h, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_handle', 'out of range', &
                    'put_handle to unit size')
    call check(h == DART_HANDLE_NULL, 'the handle is untouched on failure')
    call dart_get_handle(x, bad, h, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_handle', 'out of range', &
                    'get_handle from unit size')
    call dart_flush(bad, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_flush', 'out of range', 'flush(unit size)')
    call dart_flush_local(bad, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_flush_local', 'out of range', &
                    'flush_local(unit size)')
    ! past the end of the segment (8192 bytes)
    past = g
    call dart_gptr_setunit(past, tme)
    call dart_gptr_incaddr(past, 8192 - 16)
    call dart_put_blocking(past, x, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_blocking', 'past the end', &
                    'put past the end')
    call dart_get_blocking(m(1, :), past, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_blocking', 'past the end', &
                    'get of a section past the end')
    call dart_put_blocking(past, x(1:2), stat=st)
    call check_ok(st, 'put of the last 16 bytes')
    ! a segment that does not exist (never allocated)
    call dart_gptr_make(0, 0, 1234_int16, team, 0_int64, freed)
    call dart_put(freed, x, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_NOTFOUND, msg, 'dart_put', 'does not exist', 'put to a missing segment')
    call dart_get(x, freed, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_NOTFOUND, msg, 'dart_get', 'does not exist', 'get from a missing segment')
    call dart_flush_all(freed, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_NOTFOUND, msg, 'dart_flush_all', 'does not exist', &
                    'flush_all(missing segment)')
    call dart_flush_local_all(freed, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_NOTFOUND, msg, 'dart_flush_local_all', 'does not exist', &
                    'flush_local_all(missing segment)')
    ! sections without a DART datatype
    call dart_get_blocking(x(4:1:-1), g, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_blocking', 'negative', 'reversed section')
    call dart_put_handle(g, m(4:1:-1, 1), h, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_handle', 'negative', &
                    'put_handle of a reversed section')
    ! remote types
    call dart_put_blocking(g, x, remote_type=DART_TYPE_UNDEFINED, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_blocking', 'not a valid', &
                    'remote_type DART_TYPE_UNDEFINED')
    call dart_get_blocking(x, g, remote_type=DART_TYPE_INT, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_blocking', 'different base', &
                    'remote_type of another base type')
    ! C-style
    call dart_put_blocking(g, x, -1, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_blocking', 'negative', 'C-style nelem -1')
    call dart_get(iv, g, 4_c_size_t, DART_TYPE_INT, DART_TYPE_DOUBLE, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get', 'different base', &
                    'C-style get with mismatched types')
    call dart_put_handle(bad, x, 4, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, h, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put_handle', 'out of range', &
                    'C-style put_handle to unit size')
    call dart_get_handle(x, bad, 4_c_size_t, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, h, stat=st, &
                         errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_handle', 'out of range', &
                    'C-style get_handle from unit size')
    call dart_put(g, x, 4, DART_TYPE_UNDEFINED, DART_TYPE_DOUBLE, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_put', 'not a valid', 'C-style put, bad type')
    call dart_get_blocking(x, g, -3_c_size_t, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, stat=st, &
                           errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_get_blocking', 'negative', &
                    'C-style nelem -3 (c_size_t)')
    call dart_barrier(team)
  end subroutine errors

  ! ---------------------------------------------------------------------------------
  ! datatype calls, remote datatypes
  ! ---------------------------------------------------------------------------------
  subroutine datatypes()
    integer(DART_DATATYPE_KIND) :: col, idx, cus, cus8, tmp
    type(dart_gptr) :: g, mine, rg
    real(real64), target :: v(5), w(6), pairs(4), back(4)
    real(real64), pointer :: view(:)
    character(len=256) :: msg
    integer :: i, st, left, right
    right = mod(me + 1, nunits)
    left = mod(me - 1 + nunits, nunits)
    call dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_DOUBLE, g)
    mine = g
    call dart_gptr_setunit(mine, me)
    rg = g
    call dart_gptr_setunit(rg, right)
    call dart_local(mine, view, [64])
    view = 0
    call dart_barrier(DART_TEAM_ALL)

    ! strided remote type: a column of a remote 4 x n matrix
    call dart_type_create_strided(DART_TYPE_DOUBLE, 4_int64, 1_int64, col, stat=st)
    call check_ok(st, 'dart_type_create_strided (int64)')
    v = [(fval(me, i, 3, 0), i = 1, 5)]
    call dart_put_blocking(rg, v, remote_type=col, stat=st)
    call check_ok(st, 'put_blocking with a strided remote type')
    call dart_barrier(DART_TEAM_ALL)
    call check(all(view(1:17:4) == [(fval(left, i, 3, 0), i = 1, 5)]) .and. &
               all(view(2:17:4) == 0), 'the vector arrived in a remote column')
    w = 0
    call dart_get_blocking(w(1:5), rg, remote_type=col, stat=st)
    call check(st == DART_OK .and. all(w(1:5) == v), 'get_blocking with a strided remote type')
    call dart_barrier(DART_TEAM_ALL)

    ! indexed remote type: blocks {0,1} and {5}, pattern of 3 elements, extent 6
    call dart_type_create_indexed(DART_TYPE_DOUBLE, [2, 1], [0, 5], idx, stat=st)
    call check_ok(st, 'dart_type_create_indexed')
    view = 0
    call dart_barrier(DART_TEAM_ALL)
    w = [(fval(me, i, 4, 0), i = 1, 6)]
    call dart_put_blocking(rg, w, remote_type=idx, stat=st)
    call check_ok(st, 'put_blocking with an indexed remote type')
    call dart_barrier(DART_TEAM_ALL)
    call check(all(view([1, 2, 6, 7, 8, 12]) == [(fval(left, i, 4, 0), i = 1, 6)]), &
               'indexed remote layout')
    call dart_type_destroy(idx, stat=st)
    call check(st == DART_OK .and. idx == DART_TYPE_UNDEFINED, 'dart_type_destroy')
    call dart_type_create_indexed(DART_TYPE_DOUBLE, [1_int64], [3_int64], idx, stat=st)
    call check_ok(st, 'dart_type_create_indexed (int64)')
    call dart_type_destroy(idx)
    call dart_barrier(DART_TEAM_ALL)

    ! custom type: pairs of doubles moved as 16-byte elements (C-style)
    call dart_type_create_custom(16, cus, stat=st)
    call check_ok(st, 'dart_type_create_custom')
    call dart_type_create_custom(16_int64, cus8, stat=st)
    call check_ok(st, 'dart_type_create_custom (int64)')
    pairs = [(fval(me, i, 5, 0), i = 1, 4)]
    call dart_put_blocking(rg, pairs, 2, cus, cus, stat=st)
    call check_ok(st, 'put of 2 custom elements')
    back = 0
    call dart_get_blocking(back, rg, 2_c_size_t, cus8, cus, stat=st)
    call check(st == DART_OK .and. all(back == pairs), 'custom elements round trip')
    call dart_type_destroy(cus)
    call dart_type_destroy(cus8)

    ! bad datatype calls
    call dart_type_create_strided(DART_TYPE_DOUBLE, 1, 2, tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_create_strided', 'stride', &
                    'stride < blocklen')
    call dart_type_create_strided(DART_TYPE_DOUBLE, -4, 1, tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_create_strided', 'negative', &
                    'negative stride')
    call dart_type_create_strided(col, 8, 1, tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_create_strided', 'basetype', &
                    'strided over a strided type')
    call dart_type_create_indexed(DART_TYPE_DOUBLE, [1, 2], [0], tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_create_indexed', 'differ', &
                    'blocklen and offset of different sizes')
    call dart_type_create_indexed(DART_TYPE_UNDEFINED, [1], [0], tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_create_indexed', 'basetype', &
                    'indexed over DART_TYPE_UNDEFINED')
    call dart_type_create_custom(-1, tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_create_custom', 'negative', &
                    'custom(-1)')
    tmp = DART_TYPE_DOUBLE
    call dart_type_destroy(tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_destroy', 'basic', 'destroy(basic type)')
    tmp = col
    call dart_type_destroy(col)
    call dart_type_destroy(tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_type_destroy', 'not a live', 'destroy twice')
    call dart_barrier(DART_TEAM_ALL)
    call dart_team_memfree(g)
  end subroutine datatypes

  ! ---------------------------------------------------------------------------------
  ! one round trip per element type (onesided_type.inc)
  ! ---------------------------------------------------------------------------------
#define SUBNAME rt_int8
#define TYPE integer(int8)
#define LABEL 'int8'
#define VAL(u, i) int(10 * (u) + (i), int8)
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_int16
#define TYPE integer(int16)
#define LABEL 'int16'
#define VAL(u, i) int(1000 * (u) + (i), int16)
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_int32
#define TYPE integer(int32)
#define LABEL 'int32'
#define VAL(u, i) int(100000 * (u) + (i), int32)
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_int64
#define TYPE integer(int64)
#define LABEL 'int64'
#define VAL(u, i) (int(u, int64) * 10000000000_int64 + (i))
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_real32
#define TYPE real(real32)
#define LABEL 'real32'
#define VAL(u, i) real(100 * (u) + (i), real32) / 4
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_real64
#define TYPE real(real64)
#define LABEL 'real64'
#define VAL(u, i) real(100 * (u) + (i), real64) / 3
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_complex32
#define TYPE complex(real32)
#define LABEL 'complex(real32)'
#define VAL(u, i) cmplx(100 * (u) + (i), -(i), real32)
#include "onesided_type.inc"
#undef SUBNAME
#undef TYPE
#undef LABEL
#undef VAL
#define SUBNAME rt_complex64
#define TYPE complex(real64)
#define LABEL 'complex(real64)'
#define VAL(u, i) cmplx(100 * (u) + (i), -(i), real64) / 7
#include "onesided_type.inc"

end program ftest_onesided
