! SPDX-License-Identifier: BSD-3-Clause
! The README's halo exchange: every unit gets its ring neighbours' edge rows.
program halo                                   ! mpiexec -n 4 ./halo_ring_f
  use dart; use, intrinsic :: iso_fortran_env, only: real64; implicit none
  type(dart_gptr) :: g, left, right; real(real64), pointer :: u(:, :); integer :: me, n
  integer(DART_DATATYPE_KIND) :: col
  call dart_init(); call dart_myid(me); call dart_size(n)
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 32, DART_TYPE_DOUBLE, g)
  call dart_gptr_setunit(g, me); call dart_local(g, u, [8, 4])  ! u(1:8,1:4), ghosts u(1,:), u(8,:)
  u(2:7, :) = me; call dart_barrier(DART_TEAM_ALL)            ! all parts written
  call dart_type_create_strided(DART_TYPE_DOUBLE, 8, 1, col)   ! one element in every 8
  left = g; call dart_gptr_setunit(left, modulo(me - 1, n)); call dart_gptr_incaddr(left, 8 * 6)
  right = g; call dart_gptr_setunit(right, modulo(me + 1, n)); call dart_gptr_incaddr(right, 8)
  call dart_get_blocking(u(1, :), left, remote_type=col)       ! left's u(7, :): strided both sides
  call dart_get_blocking(u(8, :), right, remote_type=col)      ! right's u(2, :)
  print '(a,i0,a,i0,1x,i0)', 'unit ', me, ': ghosts ', int(u(1, 1)), int(u(8, 1))
  call dart_barrier(DART_TEAM_ALL); call dart_type_destroy(col); call dart_team_memfree(g)
  call dart_exit()
end program halo
