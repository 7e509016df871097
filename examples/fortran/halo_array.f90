! SPDX-License-Identifier: BSD-3-Clause
program halo_array                                     ! mpiexec -n 4 ./halo_array_f
  use dart; use, intrinsic :: iso_fortran_env, only: real64; implicit none
  type(dart_array) :: a; real(real64), pointer :: p(:, :); integer :: lo(2), hi(2), i, j, me
  call dart_init(); call dart_myid(me)
  call dart_array_create(a, DART_TYPE_DOUBLE, [8, 6], halo=[1], periodic=[.true.])
  call dart_array_query(a, lo=lo, hi=hi)               ! my block: p(lo(1):hi(1), lo(2):hi(2))
  call dart_array_interior(a, p)                       ! bounds = global indices, 0-based
  do i = lo(2), hi(2); do j = lo(1), hi(1); p(j, i) = 100 * i + j; end do; end do
  call dart_array_update_halo(a)                       ! one call: every ghost from its neighbour
  call dart_array_local(a, p)                          ! with ghosts: p(lo(1) - 1, lo(2)) is [i0, j0 - 1]
  print '(4(a,i0),a,i0,a,i0,a,i0)', 'unit ', me, ': rows ', lo(2), '..', hi(2), ', columns ', &
        lo(1), '..', hi(1), ', west ghost ', int(p(lo(1) - 1, lo(2)))
  call dart_array_destroy(a); call dart_exit()
end program halo_array
