! SPDX-License-Identifier: BSD-3-Clause
! reduce_identity.f90 -- the Fortran twin of examples/c/reduce_identity.c: the same four
! fields, the same reductions, the same output (see there), so that the lines compare byte
! for byte with the C and Python programs at any unit count:
!
!   mpiexec -n <units> _build/<mpi>/examples/reduce_identity_f
!
! Shapes are in Fortran order, the reverse of C's: the C field (13, 11) is [11, 13] here
! and its point (i, j) is p(j, i); the global indices are the same 0-based numbers.
program reduce_identity
  use dart
  use, intrinsic :: iso_fortran_env, only: real32, real64, int8, output_unit, error_unit
  implicit none
  integer :: me, n
  call dart_init()
  call dart_myid(me)
  call dart_size(n)
  call field_d('d2', [11, 13])
  call field_f('f2', [11, 13])
  call field_d('d3', [5, 6, 7])
  call field_f('f3', [5, 6, 7])
  flush(output_unit)
  call dart_exit()

contains

  !> The numerators of a (second false) and b at C indices (i, j, k).
  integer function num(i, j, k, second)
    integer, intent(in) :: i, j, k
    logical, intent(in) :: second
    if (second) then
      num = mod(i * 7 + j * 3 + k * 11, 100) + 1
    else
      num = mod(i * 31 + j * 17 + k * 7, 1000) - 500
    end if
  end function num

  !> C indices (i, j, k) of the Fortran point q(:) (rank nd; k = 0 in 2D).
  subroutine c_index(q, nd, i, j, k)
    integer, intent(in) :: q(3), nd
    integer, intent(out) :: i, j, k
    if (nd == 3) then
      i = q(3); j = q(2); k = q(1)
    else
      i = q(2); j = q(1); k = 0
    end if
  end subroutine c_index

  !> Prints "<field> <what> <hex>" on unit 0 (bytes in memory order) after checking that
  !> every unit has the same bytes.
  subroutine show(name, what, bytes)
    character(len=*), intent(in) :: name, what
    integer(int8), intent(in) :: bytes(:)
    integer(int8), allocatable :: all(:)
    integer :: u, k
    character(len=2) :: hx
    character(len=:), allocatable :: line
    allocate(all(size(bytes) * n))
    call dart_allgather(bytes, all, DART_TEAM_ALL)
    do u = 1, n - 1
      if (any(all(u * size(bytes) + 1:(u + 1) * size(bytes)) /= bytes)) then
        write(error_unit, '(5a,i0)') 'reduce_identity: ', name, ' ', what, ' differs on unit ', u
        call dart_abort(1)
      end if
    end do
    if (me /= 0) return
    line = name // ' ' // what // ' '
    do k = 1, size(bytes)
      write(hx, '(z2.2)') bytes(k)
      line = line // hx
    end do
    do k = 1, len(line)   ! lowercase hex, as the C program prints it
      if (line(k:k) >= 'A' .and. line(k:k) <= 'F') line(k:k) = achar(iachar(line(k:k)) + 32)
    end do
    write(output_unit, '(a)') line
  end subroutine show

  subroutine norms(name, a)
    character(len=*), intent(in) :: name
    type(dart_array), intent(in) :: a
    real(real64) :: r
    call dart_array_norm(a, DART_ARRAY_NORM_1, r)
    call show(name, 'norm1', transfer(r, [0_int8]))
    call dart_array_norm(a, DART_ARRAY_NORM_2, r)
    call show(name, 'norm2', transfer(r, [0_int8]))
    call dart_array_norm(a, DART_ARRAY_NORM_INF, r)
    call show(name, 'norminf', transfer(r, [0_int8]))
  end subroutine norms

  subroutine field_d(name, shape)
    character(len=*), intent(in) :: name
    integer, intent(in) :: shape(:)
    type(dart_array) :: a, b
    real(real64), pointer :: a2(:, :), b2(:, :), a3(:, :, :), b3(:, :, :)
    real(real64) :: r
    integer :: lo(3), hi(3), q(3), i, j, k, x, y, z, nd
    nd = size(shape)
    call dart_array_create(a, DART_TYPE_DOUBLE, shape, halo=[1])
    call dart_array_create(b, DART_TYPE_DOUBLE, shape, halo=[1])
    lo = 0
    hi = 0
    call dart_array_query(a, lo=lo, hi=hi)
    if (nd == 2) then
      call dart_array_interior(a, a2)
      call dart_array_interior(b, b2)
    else
      call dart_array_interior(a, a3)
      call dart_array_interior(b, b3)
    end if
    do z = lo(3), hi(3)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          q = [x, y, z]
          call c_index(q, nd, i, j, k)
          if (nd == 2) then
            a2(x, y) = real(num(i, j, k, .false.), real64) / 7.0_real64
            b2(x, y) = real(num(i, j, k, .true.), real64) / 3.0_real64
          else
            a3(x, y, z) = real(num(i, j, k, .false.), real64) / 7.0_real64
            b3(x, y, z) = real(num(i, j, k, .true.), real64) / 3.0_real64
          end if
        end do
      end do
    end do
    call dart_array_reduce(a, DART_OP_SUM, r)
    call show(name, 'sum', transfer(r, [0_int8]))
    call dart_array_reduce(a, DART_OP_MIN, r)
    call show(name, 'min', transfer(r, [0_int8]))
    call dart_array_reduce(a, DART_OP_MAX, r)
    call show(name, 'max', transfer(r, [0_int8]))
    call norms(name, a)
    call dart_array_dot(a, b, r)
    call show(name, 'dot', transfer(r, [0_int8]))
    call dart_array_destroy(b)
    call dart_array_destroy(a)
  end subroutine field_d

  subroutine field_f(name, shape)
    character(len=*), intent(in) :: name
    integer, intent(in) :: shape(:)
    type(dart_array) :: a, b
    real(real32), pointer :: a2(:, :), b2(:, :), a3(:, :, :), b3(:, :, :)
    real(real32) :: r
    integer :: lo(3), hi(3), q(3), i, j, k, x, y, z, nd
    nd = size(shape)
    call dart_array_create(a, DART_TYPE_FLOAT, shape, halo=[1])
    call dart_array_create(b, DART_TYPE_FLOAT, shape, halo=[1])
    lo = 0
    hi = 0
    call dart_array_query(a, lo=lo, hi=hi)
    if (nd == 2) then
      call dart_array_interior(a, a2)
      call dart_array_interior(b, b2)
    else
      call dart_array_interior(a, a3)
      call dart_array_interior(b, b3)
    end if
    do z = lo(3), hi(3)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          q = [x, y, z]
          call c_index(q, nd, i, j, k)
          if (nd == 2) then
            a2(x, y) = real(num(i, j, k, .false.), real32) / 7.0_real32
            b2(x, y) = real(num(i, j, k, .true.), real32) / 3.0_real32
          else
            a3(x, y, z) = real(num(i, j, k, .false.), real32) / 7.0_real32
            b3(x, y, z) = real(num(i, j, k, .true.), real32) / 3.0_real32
          end if
        end do
      end do
    end do
    call dart_array_reduce(a, DART_OP_SUM, r)
    call show(name, 'sum', transfer(r, [0_int8]))
    call dart_array_reduce(a, DART_OP_MIN, r)
    call show(name, 'min', transfer(r, [0_int8]))
    call dart_array_reduce(a, DART_OP_MAX, r)
    call show(name, 'max', transfer(r, [0_int8]))
    call norms(name, a)
    call dart_array_dot(a, b, r)
    call show(name, 'dot', transfer(r, [0_int8]))
    call dart_array_destroy(b)
    call dart_array_destroy(a)
  end subroutine field_f

end program reduce_identity
