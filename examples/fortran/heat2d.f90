! SPDX-License-Identifier: BSD-3-Clause
! heat2d: Jacobi iteration of the 2D heat equation (5-point stencil) on an nx x ny grid
! of float64, on DART's distributed arrays (type(dart_array)). The Fortran twin of
! examples/cpp/heat2d.cc and examples/python/heat2d.py: the same command line, the same
! arithmetic, the same bytes.
!
!   mpiexec -n 4 ./heat2d_f --nx 64 --ny 64 --iters 100 --mode nonblocking --out u.npy
!   mpiexec -n 2 ./heat2d_f --nx 64 --ny 64 --iters 50 --restart u.npy --out v.npy
!
! The field u[i][j] of the C and Python versions (j contiguous) is, in Fortran's
! column-major order, u(j, i): the array has the Fortran shape [ny, nx], every list per
! dimension being C's reversed. Global indices are 0-based as there: my block is
! u(lo(1):hi(1), lo(2):hi(2)), and dart_array_local gives it with its ghost ring,
! u(lo(1)-1:hi(1)+1, lo(2)-1:hi(2)+1). Boundary points are fixed (1 on row i = 0, 0.5 on
! column j = 0, 0 on the last row and column); every other point starts at 0 and becomes
!     0.25 * ((u(j, i-1) + u(j, i+1)) + (u(j-1, i) + u(j+1, i)))
! (the grouping of the other languages, so that the bytes agree).
!
! Two arrays, the current and the next iterate, with one ghost point on every side: the
! array decomposes the grid and fills the ghosts from the neighbours. Mode `blocking`:
! dart_array_update_halo, then the update; `nonblocking`: dart_array_update_halo_begin,
! the points that need no ghost, dart_array_update_halo_end, the block's outer ring;
! `notify`: the arrays' notified exchange (the owners push their faces, no barrier).
! --out writes the last iterate as one .npy file, every unit its block (dart_array_save);
! --restart starts from such a file (dart_array_load, written on any number of units)
! instead of the initial state.
program heat2d
  use, intrinsic :: iso_fortran_env, only: real64, int64, output_unit
  use dart
  use heat_common
  implicit none
  type(heat_args) :: args
  integer :: me, n, nx, ny, k, it, cur, i, j, lo(2), hi(2), procs(2)
  integer(int64) :: nnodes
  type(dart_array) :: field(0:1)
  type :: view
    real(real64), pointer :: p(:, :) => null()
  end type view
  type(view) :: u(0:1)
  real(real64), allocatable :: glob(:, :)
  real(real64) :: t0, t1, t2, t3, t_halo, t_compute, halo, compute, per

  call dart_init()
  args = parse_args('heat2d_f', .false.)
  call dart_myid(me)
  call dart_size(n)
  nx = args%nx
  ny = args%ny

  call create_fields('heat2d', args, [ny, nx], field)   ! --restart: field(0) from the file
  call dart_array_query(field(0), procs=procs, lo=lo, hi=hi)   ! my block, the grid
  do k = 0, 1
    call dart_array_local(field(k), u(k)%p)   ! with ghosts, global indices
  end do
  if (len(args%restart) == 0) then             ! ghosts stay 0: on the global boundary
    do i = lo(2), hi(2)                        ! they are never read
      do j = lo(1), hi(1)
        u(0)%p(j, i) = boundary_value(i, j)
      end do
    end do
  end if

  t_halo = 0
  t_compute = 0
  cur = 0
  do it = 1, args%iters
    t0 = wtime()
    if (.not. args%nonblocking) then
      call dart_array_update_halo(field(cur))
      t1 = wtime()
      call sweep(u(cur)%p, u(1 - cur)%p, .false.)
      t_halo = t_halo + (t1 - t0)
      t_compute = t_compute + (wtime() - t1)
    else
      call dart_array_update_halo_begin(field(cur))
      t1 = wtime()
      call sweep(u(cur)%p, u(1 - cur)%p, .true.)    ! the points that need no ghost
      t2 = wtime()
      call dart_array_update_halo_end(field(cur))
      t3 = wtime()
      do i = lo(2), hi(2)                           ! the block's outer ring
        do j = lo(1), hi(1)
          if (i == lo(2) .or. i == hi(2) .or. j == lo(1) .or. j == hi(1)) &
            call update(u(cur)%p, u(1 - cur)%p, i, j)
        end do
      end do
      t_halo = t_halo + (t1 - t0) + (t3 - t2)
      t_compute = t_compute + (t2 - t1) + (wtime() - t3)
    end if
    cur = 1 - cur
  end do

  ! The whole field on unit 0 for the checksum (the other units pass an empty buffer);
  ! the file is written by every unit from its block.
  if (me == 0) then
    allocate(glob(0:ny - 1, 0:nx - 1))
  else
    allocate(glob(0, 0))
  end if
  call dart_array_gather(field(cur), glob, 0)
  if (len(args%out) > 0) call save_field('heat2d', field(cur), args%out)
  halo = max_over_units(t_halo)
  compute = max_over_units(t_compute)
  if (me == 0) then
    call dart_node_count(nnodes)
    per = 0
    if (args%iters > 0) per = 1.0e6_real64 / args%iters
    write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') 'heat2d (Fortran): ', n, &
      ' units (', procs(2), ' x ', procs(1), ') on ', nnodes, ' node(s), grid ', nx, ' x ', &
      ny, ', ', args%iters, ' iterations, ', args%mode
    write(output_unit, '(a,f0.2,a,f0.2,a)') 'time per iteration: compute ', compute * per, &
      ' us, halo exchange ', halo * per, ' us (max over units)'
    write(output_unit, '(a,es24.16e3)') 'checksum: ', checksum(reshape(glob, [nx * ny]))
    if (len(args%out) > 0) write(output_unit, '(a)') 'wrote ' // args%out
  end if
  do k = 0, 1
    call dart_array_destroy(field(k))
  end do
  call dart_exit()

contains

  pure real(real64) function boundary_value(i, j)
    integer, intent(in) :: i, j
    boundary_value = 0
    if (i == 0) then
      boundary_value = 1
    else if (j == 0) then
      boundary_value = 0.5_real64
    end if
  end function boundary_value

  !> Every point of my block (inner: only those that need no ghost): u0 -> u1.
  subroutine sweep(u0, u1, inner)
    real(real64), intent(in) :: u0(lo(1) - 1:, lo(2) - 1:)
    real(real64), intent(inout) :: u1(lo(1) - 1:, lo(2) - 1:)
    logical, intent(in) :: inner
    integer :: i, j, d
    d = merge(1, 0, inner)
    do i = lo(2) + d, hi(2) - d
      do j = lo(1) + d, hi(1) - d
        call update(u0, u1, i, j)
      end do
    end do
  end subroutine sweep

  !> One point [i, j] (u(j, i) here): fixed on the global boundary, the stencil elsewhere.
  subroutine update(u0, u1, i, j)
    real(real64), intent(in) :: u0(lo(1) - 1:, lo(2) - 1:)
    real(real64), intent(inout) :: u1(lo(1) - 1:, lo(2) - 1:)
    integer, intent(in) :: i, j
    if (i == 0 .or. j == 0 .or. i == nx - 1 .or. j == ny - 1) then
      u1(j, i) = u0(j, i)
    else
      u1(j, i) = 0.25_real64 * ((u0(j, i - 1) + u0(j, i + 1)) + (u0(j - 1, i) + u0(j + 1, i)))
    end if
  end subroutine update

end program heat2d
