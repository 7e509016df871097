! SPDX-License-Identifier: BSD-3-Clause
! dart-test: UNITS 2 3 PROGRESS_ONLY TIMEOUT 120 LABELS progress
!
! ftest_progress [<units>]: with progress processes (DART_PROGRESS_PER_NODE=1, the
! progress placements of the test registration) a progress process never
! returns from dart_init: every process that does is a unit, dart_size is fewer than the
! processes of MPI_COMM_WORLD (and <units>, if given), and the program prints one line
! per unit.
! tests/python/test_progress.py also runs it and counts those lines. Not built on the
! ftest harness: its summary reduces over MPI_COMM_WORLD, which holds the progress
! processes; this program reduces over the units' communicator (dart_team_comm).
program ftest_progress
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
  use mpi_f08
  use dart
  implicit none
  integer :: me, n, want, world, ierr, nfail, total, node
  character(len=32) :: arg
  type(MPI_Comm) :: units

  want = -1
  call get_command_argument(1, arg)
  if (len_trim(arg) > 0) read(arg, *) want
  call dart_init()
  call dart_myid(me)
  call dart_size(n)
  call dart_unit_node(me, node)
  call MPI_Comm_size(MPI_COMM_WORLD, world, ierr)
  write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a)') 'ftest_progress: unit ', me, ' of ', n, &
    ' (node ', node, ') returned from dart_init; ', world, ' processes'
  flush(output_unit)
  nfail = 0
  if (want >= 0 .and. n /= want) then
    write(error_unit, '(a,i0,a,i0)') 'FAIL ftest_progress: dart_size ', n, ', expected ', want
    nfail = nfail + 1
  end if
  if (world <= n) then
    write(error_unit, '(a,i0,a,i0,a)') 'FAIL ftest_progress: ', world, &
      ' MPI processes for ', n, ' units: no progress process runs'
    nfail = nfail + 1
  end if
  if (me < 0 .or. me >= n) then
    write(error_unit, '(a,i0)') 'FAIL ftest_progress: dart_myid ', me
    nfail = nfail + 1
  end if
  call dart_team_comm(DART_TEAM_ALL, units)
  call MPI_Allreduce(nfail, total, 1, MPI_INTEGER, MPI_SUM, units, ierr)
  call dart_barrier(DART_TEAM_ALL)
  if (me == 0) then
    write(output_unit, '(a,i0,a)') 'ftest_progress: ', total, ' failed'
    flush(output_unit)
  end if
  call dart_exit()
  if (total > 0) error stop 1
end program ftest_progress
