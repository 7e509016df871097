! SPDX-License-Identifier: BSD-3-Clause
! ftest_h5: HDF5 files of arrays in Fortran (dart_h5_open, dart_array_write_h5,
! dart_array_read_h5, dart_array_append_h5, dart_h5_set_attr / dart_h5_get_attr of module
! `dart`, issue 38), everything per dimension in Fortran order:
!  - a real64 field of Fortran shape [5, 3n] (the dataset's C shape (3n, 5)) written with
!    named dimensions and attributes (real64, int32 array, string), read back with other
!    ghosts and a grid along the other dimension: every interior point, ghosts zero;
!  - the same data through the C API's C-order view: u(j, i) is the C point (i, j);
!  - a time series of 3 steps of an int32 field, each step read back (0-based, -1 last);
!  - refusals with stat and the same message on every unit: a missing dataset, another
!    dtype, a string read into a number, a file that does not exist.
!
! dart-test: UNITS 1 2 3 UPN none 2 TIMEOUT 120
program ftest_h5
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64
  use mpi_f08, only: MPI_Bcast, MPI_INTEGER
  use dart
  use ftest
  implicit none
  interface
    function c_getpid() bind(C, name='getpid') result(pid)
      import :: c_int
      integer(c_int) :: pid
    end function c_getpid
  end interface
  character(len=:), allocatable :: path
  character(len=64) :: buf
  integer :: pid, st, u0
  type(dart_h5_file) :: f
  type(dart_array) :: a, b, s
  real(real64), pointer :: p(:, :), q(:, :)
  integer(int32), pointer :: r(:, :)
  integer :: lo(2), hi(2), i, j, k, bad
  real(real64) :: t
  integer(int32) :: iv(3)
  integer(int64) :: n
  character(len=32) :: text
  character(len=512) :: msg

  call ftest_start('ftest_h5')
  if (.not. dart_h5_available()) then
    call ftest_finish()
    stop
  end if
  pid = int(c_getpid())
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, ftest_comm())
  write(buf, '(a,i0,a)') '/tmp/ftest_h5_', pid, '.h5'
  path = trim(buf)

  call ftest_section('write and read')
  call dart_array_create(a, DART_TYPE_DOUBLE, [5, 3 * nunits], halo=[1], stat=st)
  call check_ok(st, 'create')
  call dart_array_interior(a, p)
  call dart_array_query(a, lo=lo, hi=hi)
  do i = lo(2), hi(2)
    do j = lo(1), hi(1)
      p(j, i) = 1000 * i + j + 0.5_real64
    end do
  end do
  call dart_h5_open(f, path, 'w', stat=st)
  call check_ok(st, 'open w')
  call dart_array_write_h5(f, 'T', a, dims=['x', 'y'], stat=st)
  call check_ok(st, 'write T')
  call dart_h5_set_attr(f, '', 'time', 2.5_real64, stat=st)
  call check_ok(st, 'set time')
  call dart_h5_set_attr(f, 'T', 'steps', [1_int32, 2_int32, 3_int32], stat=st)
  call check_ok(st, 'set steps')
  call dart_h5_set_attr(f, 'T', 'units', 'K', stat=st)
  call check_ok(st, 'set units')
  call dart_array_interior(a, p)
  call dart_array_create(s, DART_TYPE_INT, [4, 2 * nunits + 1], stat=st)
  call dart_array_interior(s, r)
  call dart_array_query(s, lo=lo, hi=hi)
  do k = 0, 2
    do i = lo(2), hi(2)
      do j = lo(1), hi(1)
        r(j, i) = 100 * k + 10 * i + j
      end do
    end do
    call dart_array_append_h5(f, 'S', s, stat=st)
    call check_ok(st, 'append S')
  end do
  call dart_h5_close(f, stat=st)
  call check_ok(st, 'close w')

  call dart_h5_open(f, path, 'r', stat=st)
  call check_ok(st, 'open r')
  call dart_array_read_h5(f, 'T', b, halo=[1, 2], procs=[nunits, 1], stat=st)
  call check_ok(st, 'read T')
  call dart_array_interior(b, q)
  call dart_array_query(b, lo=lo, hi=hi)
  bad = 0
  do i = lo(2), hi(2)
    do j = lo(1), hi(1)
      if (q(j, i) /= 1000 * i + j + 0.5_real64) bad = bad + 1
    end do
  end do
  call check(bad == 0, 'read T: ' // itoa(bad) // ' points differ')
  call dart_array_destroy(b)
  call dart_h5_get_attr(f, '/', 'time', t, stat=st)
  call check(st == DART_OK .and. t == 2.5_real64, 'get time')
  call dart_h5_get_attr(f, 'T', 'steps', iv, n=n, stat=st)
  call check(st == DART_OK .and. n == 3 .and. all(iv == [1, 2, 3]), 'get steps')
  call dart_h5_get_attr(f, 'T', 'units', text, n=n, stat=st)
  call check(st == DART_OK .and. text == 'K' .and. n == 1, 'get units: ' // trim(text))

  call ftest_section('time series')
  do k = -1, 2
    call dart_array_read_h5(f, 'S', b, step=int(k, int64), stat=st)
    call check_ok(st, 'read step ' // itoa(k))
    call dart_array_interior(b, r)
    call dart_array_query(b, lo=lo, hi=hi)
    bad = 0
    do i = lo(2), hi(2)
      do j = lo(1), hi(1)
        if (r(j, i) /= 100 * modulo(k, 3) + 10 * i + j) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'step ' // itoa(k) // ': ' // itoa(bad) // ' points differ')
    call dart_array_destroy(b)
  end do

  call ftest_section('refusals')
  msg = ''
  call dart_array_read_h5(f, 'U', b, stat=st, errmsg=msg)
  call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_read_h5', "has no dataset 'U'", 'missing')
  call dart_array_read_h5(f, 'T', b, dtype=DART_TYPE_FLOAT, stat=st, errmsg=msg)
  call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_read_h5', 'not float32', 'dtype')
  call dart_h5_get_attr(f, 'T', 'units', t, stat=st, errmsg=msg)
  call check_stat(st, DART_ERR_INVAL, msg, 'dart_h5_get_attr', 'is a string', 'string as number')
  call dart_h5_close(f, stat=st)
  call check_ok(st, 'close r')
  call dart_h5_open(f, path // '.missing', 'r', stat=st, errmsg=msg)
  call check_stat(st, DART_ERR_INVAL, msg, 'dart_h5_open', 'No such file', 'missing file')

  call dart_array_destroy(a)
  call dart_array_destroy(s)
  call dart_barrier(DART_TEAM_ALL)
  if (me == 0) then
    open(newunit=u0, file=path, status='old')
    close(u0, status='delete')
  end if
  deallocate(path)
  call ftest_finish()
end program ftest_h5
