! SPDX-License-Identifier: BSD-3-Clause
! solver.f90: a small 2D Jacobi heat solver on DART, as a Fortran user writes it; built
! against the INSTALLED package by install_check.sh (with dart-config, pkg-config and
! CMake's find_package) to prove that the documented command lines work.
!
! The grid u(0:nx+1, 0:ny+1) (halo included) is split along x: unit k owns rows
! k*nx+1 .. (k+1)*nx of the global grid. The halo rows u(0, :) and u(nx+1, :) are NOT
! contiguous in Fortran's column-major order: they are fetched with dart_get_blocking
! into the row sections directly (strided DART types on both sides, no copies). After
! the steps every unit compares its block with a serial computation of the whole grid
! (redundant on every unit, the grid is small) and the units agree on the result with
! MPI_Allreduce on the team communicator (dart_team_comm: DART and MPI mixed).
program solver
  use, intrinsic :: iso_fortran_env, only: real64, output_unit, error_unit
  use mpi_f08
  use dart
  implicit none
  integer, parameter :: nx = 6, ny = 10, steps = 50
  integer :: me, n, left, right, s, i, j, ierr, bad, allbad
  type(dart_gptr) :: g, gl, gr
  integer(DART_DATATYPE_KIND) :: rowtype
  real(real64), pointer :: u(:, :)
  real(real64), allocatable :: unew(:, :), full(:, :), fnew(:, :)
  type(MPI_Comm) :: comm
  real(real64) :: err, maxerr

  call dart_init()
  call dart_myid(me)
  call dart_size(n)
  left = me - 1
  right = me + 1

  ! symmetric allocation of (nx+2) x (ny+2) doubles; u points at the own block
  call dart_team_memalloc_aligned(DART_TEAM_ALL, (nx + 2) * (ny + 2), DART_TYPE_DOUBLE, g)
  call dart_gptr_setunit(g, me)
  call dart_local(g, u, [nx + 2, ny + 2])
  u(0:, 0:) => u          ! halo at index 0
  ! a row of the remote block: stride nx+2 elements
  call dart_type_create_strided(DART_TYPE_DOUBLE, nx + 2, 1, rowtype)

  ! initial condition: a hot spot in the global grid; fixed boundary values 0
  do j = 0, ny + 1
    do i = 0, nx + 1
      u(i, j) = initial(me * nx + i, j)
    end do
  end do
  allocate(unew(0:nx + 1, 0:ny + 1))
  call dart_barrier(DART_TEAM_ALL)

  do s = 1, steps
    ! halo rows from the neighbours: their row nx (left) and row 1 (right)
    if (left >= 0) then
      gl = g
      call dart_gptr_setunit(gl, left)
      call dart_gptr_incaddr(gl, 8 * nx)                  ! element (nx, 0)
      call dart_get_blocking(u(0, :), gl, remote_type=rowtype)
    end if
    if (right < n) then
      gr = g
      call dart_gptr_setunit(gr, right)
      call dart_gptr_incaddr(gr, 8)                       ! element (1, 0)
      call dart_get_blocking(u(nx + 1, :), gr, remote_type=rowtype)
    end if
    unew = u
    do j = 1, ny
      do i = 1, nx
        unew(i, j) = 0.25_real64 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
      end do
    end do
    call dart_barrier(DART_TEAM_ALL)          ! everybody has read the old rows
    u(1:nx, 1:ny) = unew(1:nx, 1:ny)
    call dart_barrier(DART_TEAM_ALL)          ! the new rows are in place
  end do

  ! serial reference of the whole grid
  allocate(full(0:n * nx + 1, 0:ny + 1), fnew(0:n * nx + 1, 0:ny + 1))
  do j = 0, ny + 1
    do i = 0, n * nx + 1
      full(i, j) = initial(i, j)
    end do
  end do
  do s = 1, steps
    fnew = full
    do j = 1, ny
      do i = 1, n * nx
        fnew(i, j) = 0.25_real64 * (full(i - 1, j) + full(i + 1, j) + full(i, j - 1) + &
                                    full(i, j + 1))
      end do
    end do
    full = fnew
  end do
  err = maxval(abs(u(1:nx, 1:ny) - full(me * nx + 1:me * nx + nx, 1:ny)))
  bad = merge(1, 0, err > 1.0e-12_real64)

  call dart_team_comm(DART_TEAM_ALL, comm)
  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call dart_allreduce(err, maxerr, DART_OP_MAX, DART_TEAM_ALL)
  if (me == 0) then
    write(output_unit, '(a,i0,a,i0,a,es10.3)') 'solver: ', n, ' units, ', steps, &
      ' steps, max error ', maxerr
    if (allbad == 0) write(output_unit, '(a)') 'solver: OK'
  end if

  call dart_type_destroy(rowtype)
  call dart_team_memfree(g)
  call dart_exit()
  if (allbad /= 0) then
    write(error_unit, '(a)') 'solver: the distributed result differs from the serial one'
    stop 1
  end if

contains

  pure real(real64) function initial(ig, j)
    integer, intent(in) :: ig, j
    initial = 0
    if (ig >= 2 .and. ig <= 4 .and. j >= 3 .and. j <= 6) initial = 100.0_real64
    if (ig == 0 .or. j == 0 .or. j == ny + 1) initial = 0
  end function initial

end program solver
