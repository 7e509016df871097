! SPDX-License-Identifier: BSD-3-Clause
! heat3d: the 3D heat conduction of the IJNC 2017 paper: explicit finite differences
! (7-point stencil) on an nx x ny x nz grid of float64 with fixed boundary temperatures,
! checkerboard 3D decomposition over the units, six neighbours, on DART's distributed
! arrays (type(dart_array)). The Fortran twin of examples/cpp/heat3d.cc and
! examples/python/heat3d.py (same command line, same bytes).
!
!   mpiexec -n 4 ./heat3d_f --nx 32 --ny 32 --nz 32 --iters 50 --mode blocking --out u.npy
!   mpiexec -n 3 ./heat3d_f --nx 32 --ny 32 --nz 32 --iters 50 --restart u.npy --out v.npy
!
! The field u[i][j][k] of the C and Python versions (k contiguous) is u(k, j, i) here: the
! arrays have the Fortran shape [nz, ny, nx] and global 0-based indices, my block being
! u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)). Boundary points are fixed: 1 on the face i = 0,
! 0.5 on j = 0 (i >= 1), 0.25 on k = 0 (i, j >= 1), 0 on the other three faces; the
! interior starts at 0 and becomes
!     lap  = ((u(i-1) + u(i+1)) + (u(j-1) + u(j+1))) + (u(k-1) + u(k+1))
!     unew = u + 0.125 * (lap - 6 u)
! (neighbours named by the index that differs; this grouping in every language).
!
! Two arrays (the current and the next iterate), one ghost layer on every side (a star
! stencil: the six faces). Mode `blocking`: dart_array_update_halo, then the update;
! `nonblocking`: dart_array_update_halo_begin, the points that need no ghost,
! dart_array_update_halo_end, the block's outer shell; `notify`: the arrays' notified
! exchange (the owners push their faces, no barrier). --out writes the last iterate as one
! .npy file, every unit its block (dart_array_save); --restart starts from such a file
! (dart_array_load, written on any number of units) instead of the initial state.
program heat3d
  use, intrinsic :: iso_fortran_env, only: real64, int64, output_unit
  use dart
  use heat_common
  implicit none
  type(heat_args) :: args
  integer :: me, n, nn(3), procs(3), lo(3), hi(3), k, it, cur, a, b, c
  integer(int64) :: nnodes
  type(dart_array) :: field(0:1)
  type :: view
    real(real64), pointer :: p(:, :, :) => null()
  end type view
  type(view) :: u(0:1)
  real(real64), allocatable :: glob(:, :, :)
  real(real64), allocatable :: t_iter(:)   ! halo exchange per iteration: mean and median
  real(real64) :: t0, t1, t2, t3, t_halo, t_compute, halo, compute, per, hmedian

  call dart_init()
  args = parse_args('heat3d_f', .true.)
  call dart_myid(me)
  call dart_size(n)
  nn = [args%nx, args%ny, args%nz]

  call create_fields('heat3d', args, nn(3:1:-1), field)   ! --restart: field(0) from the file
  call dart_array_query(field(0), procs=procs, lo=lo, hi=hi)   ! Fortran order: k, j, i
  do k = 0, 1
    call dart_array_local(field(k), u(k)%p)   ! with ghosts, global indices
  end do
  if (len(args%restart) == 0) then             ! ghosts stay 0: on the global boundary
    do a = lo(3), hi(3)                        ! they are never read
      do b = lo(2), hi(2)
        do c = lo(1), hi(1)
          u(0)%p(c, b, a) = boundary_value(a, b, c)
        end do
      end do
    end do
  end if

  allocate(t_iter(args%iters))
  t_iter = 0
  t_compute = 0
  cur = 0
  do it = 1, args%iters
    t0 = wtime()
    if (.not. args%nonblocking) then
      call dart_array_update_halo(field(cur))
      t1 = wtime()
      call sweep(u(cur)%p, u(1 - cur)%p, .false.)
      t_iter(it) = t1 - t0
      t_compute = t_compute + (wtime() - t1)
    else
      call dart_array_update_halo_begin(field(cur))
      t1 = wtime()
      call sweep(u(cur)%p, u(1 - cur)%p, .true.)    ! the points that need no ghost
      t2 = wtime()
      call dart_array_update_halo_end(field(cur))
      t3 = wtime()
      do a = lo(3), hi(3)                           ! the block's outer shell
        do b = lo(2), hi(2)
          do c = lo(1), hi(1)
            if (a == lo(3) .or. a == hi(3) .or. b == lo(2) .or. b == hi(2) .or. &
                c == lo(1) .or. c == hi(1)) call update(u(cur)%p, u(1 - cur)%p, a, b, c)
          end do
        end do
      end do
      t_iter(it) = (t1 - t0) + (t3 - t2)
      t_compute = t_compute + (t2 - t1) + (wtime() - t3)
    end if
    cur = 1 - cur
  end do

  ! The whole field on unit 0 for the checksum (the other units pass an empty buffer);
  ! the file is written by every unit from its block.
  if (me == 0) then
    allocate(glob(0:nn(3) - 1, 0:nn(2) - 1, 0:nn(1) - 1))
  else
    allocate(glob(0, 0, 0))
  end if
  call dart_array_gather(field(cur), glob, 0)
  if (len(args%out) > 0) call save_field('heat3d', field(cur), args%out)
  t_halo = sum(t_iter)
  halo = max_over_units(t_halo)
  hmedian = max_over_units(median(t_iter))
  compute = max_over_units(t_compute)
  if (me == 0) then
    call dart_node_count(nnodes)
    per = 0
    if (args%iters > 0) per = 1.0e6_real64 / args%iters
    write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') &
      'heat3d (Fortran): ', n, ' units (', procs(3), ' x ', procs(2), ' x ', procs(1), &
      ') on ', nnodes, ' node(s), grid ', nn(1), ' x ', nn(2), ' x ', nn(3), ', ', args%iters, &
      ' iterations, ', args%mode
    write(output_unit, '(a,f0.2,a,f0.2,a)') 'time per iteration: compute ', compute * per, &
      ' us, halo exchange ', halo * per, ' us (max over units)'
    write(output_unit, '(a,f0.2,a)') 'halo exchange median ', hmedian * 1.0e6_real64, &
      ' us per iteration (max over units)'
    write(output_unit, '(a,es24.16e3)') 'checksum: ', checksum(reshape(glob, [size(glob)]))
    if (len(args%out) > 0) write(output_unit, '(a)') 'wrote ' // args%out
  end if
  do k = 0, 1
    call dart_array_destroy(field(k))
  end do
  call dart_exit()

contains

  pure real(real64) function boundary_value(i, j, k)
    integer, intent(in) :: i, j, k
    boundary_value = 0
    if (i == 0) then
      boundary_value = 1
    else if (j == 0) then
      boundary_value = 0.5_real64
    else if (k == 0) then
      boundary_value = 0.25_real64
    end if
  end function boundary_value

  !> Every point of my block (inner: only those that need no ghost): u0 -> u1.
  subroutine sweep(u0, u1, inner)
    real(real64), intent(in) :: u0(lo(1) - 1:, lo(2) - 1:, lo(3) - 1:)
    real(real64), intent(inout) :: u1(lo(1) - 1:, lo(2) - 1:, lo(3) - 1:)
    logical, intent(in) :: inner
    integer :: a, b, c, d
    d = merge(1, 0, inner)
    do a = lo(3) + d, hi(3) - d
      do b = lo(2) + d, hi(2) - d
        do c = lo(1) + d, hi(1) - d
          call update(u0, u1, a, b, c)
        end do
      end do
    end do
  end subroutine sweep

  !> One point [i, j, k] (u(k, j, i) here): fixed on the global boundary, the stencil
  !> elsewhere.
  subroutine update(u0, u1, i, j, k)
    real(real64), intent(in) :: u0(lo(1) - 1:, lo(2) - 1:, lo(3) - 1:)
    real(real64), intent(inout) :: u1(lo(1) - 1:, lo(2) - 1:, lo(3) - 1:)
    integer, intent(in) :: i, j, k
    real(real64) :: lap
    if (i == 0 .or. j == 0 .or. k == 0 .or. i == nn(1) - 1 .or. j == nn(2) - 1 .or. &
        k == nn(3) - 1) then
      u1(k, j, i) = u0(k, j, i)
      return
    end if
    lap = ((u0(k, j, i - 1) + u0(k, j, i + 1)) + (u0(k, j - 1, i) + u0(k, j + 1, i))) + &
          (u0(k - 1, j, i) + u0(k + 1, j, i))
    u1(k, j, i) = u0(k, j, i) + 0.125_real64 * (lap - 6.0_real64 * u0(k, j, i))
  end subroutine update

end program heat3d
