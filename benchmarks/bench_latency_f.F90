! SPDX-License-Identifier: BSD-3-Clause
! bench_latency_f: the DART latency benchmark of bench_latency.cc through the Fortran
! module `dart` (impl `dart-fortran`): put_blocking, get_blocking and the initiation time
! of put_handle/get_handle, unit 0 -> unit 1, on integer(int8) buffers of n bytes, so that
! the wrapper passes exactly the C benchmark's arguments to C (n elements of
! DART_TYPE_BYTE) and the difference of the rows is the cost of the Fortran layer.
!
! The harness is bench_common.h's, written again in Fortran (same method, same CSV):
! rank 0 runs one discarded call, calibrates a batch size K so that a batch takes at least
! --batch-us microseconds, runs one warm-up batch and R timed batches; each batch is
! announced to rank 1 by an MPI_Bcast of K, and rank 1 waits in the next MPI_Bcast (inside
! MPI, driving progress) while rank 0 works. A sample is batch time / K; a row reports the
! median and min of the R samples and iters = R*K.
!
! options: [--quick] [--header] [--out FILE] [--placement node|remote] [--sizes 8,1K,1M]
!          [--batch-us US] [--reps R]
program bench_latency_f
  use, intrinsic :: iso_fortran_env, only: int8, int64, real64, error_unit, output_unit
  use mpi_f08
  use dart
  implicit none

  integer, parameter :: kHandleChunk = 1024
  integer, parameter :: PUT_BLOCKING = 1, GET_BLOCKING = 2, PUT_HANDLE = 3, GET_HANDLE = 4
  character(len=16), parameter :: opname(4) = [character(len=16) :: 'put_blocking', &
    'get_blocking', 'put_handle_init', 'get_handle_init']

  logical :: quick = .false., header = .false.
  character(len=512) :: outfile = ''
  character(len=512) :: want_placement = ''
  character(len=8) :: placement
  real(real64) :: batch_us = 500.0_real64
  integer :: reps_opt = 0
  integer(int64), allocatable :: sizes(:)
  integer :: out = output_unit

  type(MPI_Comm) :: comm
  integer :: rank, nranks, me, ierr, node0, node1, is, op
  integer(int64) :: max_bytes, n
  type(dart_gptr) :: g, tgt
  integer(int8), allocatable, target, asynchronous :: src(:), dst(:)
  type(dart_handle), target :: hs(kHandleChunk)

  call dart_init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  call parse_options()
  if (nranks /= 2) call die('run with exactly 2 processes')
  call dart_myid(me)
  if (me /= rank) call die('DART unit ids must equal MPI_COMM_WORLD ranks')

  call dart_unit_node(0, node0)
  call dart_unit_node(1, node1)
  placement = merge('node  ', 'remote', node0 == node1)
  if (len_trim(want_placement) > 0 .and. trim(want_placement) /= trim(placement)) &
    call die('--placement ' // trim(want_placement) // ' but the runtime reports ' // &
             trim(placement) // ' (is DART_UNITS_PER_NODE passed to both units?)')

  if (rank == 0 .and. len_trim(outfile) > 0) then
    open(newunit=out, file=trim(outfile), position='append', action='write', status='unknown')
  end if
  if (rank == 0 .and. header) &
    write(out, '(a)') 'bench,impl,op,bytes,units,placement,median_us,min_us,iters'

  max_bytes = maxval(sizes)
  call dart_team_memalloc_aligned(DART_TEAM_ALL, max_bytes, DART_TYPE_BYTE, g)
  tgt = g
  call dart_gptr_setunit(tgt, 1)
  allocate(src(max_bytes), dst(max_bytes))
  src = 2
  dst = 3

  do is = 1, size(sizes)
    n = sizes(is)
    do op = 1, 4
      call run_case(op, n)
    end do
  end do

  call MPI_Barrier(comm, ierr)
  call dart_team_memfree(g)
  if (rank == 0 .and. out /= output_unit) close(out)
  call MPI_Comm_free(comm, ierr)
  call dart_exit()

contains

  subroutine die(msg)
    character(len=*), intent(in) :: msg
    integer :: e
    write(error_unit, '(a)') 'bench_latency_f: ' // msg
    flush(error_unit)
    call MPI_Abort(MPI_COMM_WORLD, 2, e)
  end subroutine die

  ! K operations of kind op with n bytes; returns the seconds charged to them.
  function origin(op, n, k) result(t)
    integer, intent(in) :: op
    integer(int64), intent(in) :: n, k
    real(real64) :: t, t0
    integer(int64) :: i, done, m
    t = 0
    select case (op)
    case (PUT_BLOCKING)
      t0 = MPI_Wtime()
      do i = 1, k
        call dart_put_blocking(tgt, src(1:n))
      end do
      t = MPI_Wtime() - t0
    case (GET_BLOCKING)
      t0 = MPI_Wtime()
      do i = 1, k
        call dart_get_blocking(dst(1:n), tgt)
      end do
      t = MPI_Wtime() - t0
    case (PUT_HANDLE)
      ! Only the initiation calls are timed; dart_waitall runs outside the timed region,
      ! after every chunk of at most kHandleChunk outstanding handles.
      done = 0
      do while (done < k)
        m = min(int(kHandleChunk, int64), k - done)
        t0 = MPI_Wtime()
        do i = 1, m
          call dart_put_handle(tgt, src(1:n), hs(i))
        end do
        t = t + (MPI_Wtime() - t0)
        call dart_waitall(hs(1:m))
        done = done + m
      end do
    case (GET_HANDLE)
      done = 0
      do while (done < k)
        m = min(int(kHandleChunk, int64), k - done)
        t0 = MPI_Wtime()
        do i = 1, m
          call dart_get_handle(dst(1:n), tgt, hs(i))
        end do
        t = t + (MPI_Wtime() - t0)
        call dart_waitall(hs(1:m))
        done = done + m
      end do
    end select
  end function origin

  ! One batch: announce K to the target, run it; wall gets the whole batch's duration.
  function batch(op, n, k, wall) result(t)
    integer, intent(in) :: op
    integer(int64), intent(in) :: n, k
    real(real64), intent(out), optional :: wall
    real(real64) :: t, t0
    integer(int64) :: kk
    integer :: e
    kk = k
    call MPI_Bcast(kk, 1, MPI_INTEGER8, 0, comm, e)
    t0 = MPI_Wtime()
    t = origin(op, n, k)
    if (present(wall)) wall = MPI_Wtime() - t0
  end function batch

  subroutine run_case(op, n)
    integer, intent(in) :: op
    integer(int64), intent(in) :: n
    integer(int64) :: k, zero, kmax
    real(real64) :: t, target_s, grow, median, tmp
    real(real64), allocatable :: us(:)
    integer :: reps, r, e, i, j
    kmax = 2_int64**22
    if (rank /= 0) then
      do
        call MPI_Bcast(k, 1, MPI_INTEGER8, 0, comm, e)
        if (k == 0) exit
      end do
      return
    end if
    target_s = batch_us * 1.0e-6_real64
    t = batch(op, n, 1_int64)                   ! first touch
    k = 1
    do                                          ! calibration (doubles as warm-up)
      t = batch(op, n, k, wall=tmp)
      if (tmp >= target_s .or. k >= kmax) exit
      if (tmp > 0) then
        grow = ceiling(1.2_real64 * target_s / tmp)
      else
        grow = 16
      end if
      grow = min(max(grow, 2.0_real64), 64.0_real64)
      k = min(kmax, int(k * grow, int64))
    end do
    t = batch(op, n, k)                         ! warm-up at the final K
    reps = reps_opt
    if (reps <= 0) then
      if (quick) then
        reps = 5
      else if (n >= 2_int64**20) then
        reps = 21
      else
        reps = 31
      end if
    end if
    allocate(us(reps))
    do r = 1, reps
      us(r) = batch(op, n, k) * 1.0e6_real64 / real(k, real64)
    end do
    zero = 0
    call MPI_Bcast(zero, 1, MPI_INTEGER8, 0, comm, e)
    do i = 2, reps                               ! insertion sort
      tmp = us(i)
      j = i - 1
      do while (j >= 1)
        if (us(j) <= tmp) exit
        us(j + 1) = us(j)
        j = j - 1
      end do
      us(j + 1) = tmp
    end do
    if (mod(reps, 2) == 1) then
      median = us(reps / 2 + 1)
    else
      median = 0.5_real64 * (us(reps / 2) + us(reps / 2 + 1))
    end if
    write(out, '(a,i0,a,i0)') 'latency,dart-fortran,' // trim(opname(op)) // ',', n, &
      ',2,' // trim(placement) // ',' // fmt4(median) // ',' // fmt4(us(1)) // ',', &
      int(reps, int64) * k
    flush(out)
  end subroutine run_case

  ! %.4f
  function fmt4(x) result(s)
    real(real64), intent(in) :: x
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write(buf, '(f0.4)') x
    s = trim(adjustl(buf))
    if (s(1:1) == '.') s = '0' // s
  end function fmt4

  integer(int64) function parse_size(text)
    character(len=*), intent(in) :: text
    character(len=:), allocatable :: t, suf
    real(real64) :: v
    integer :: i, e
    t = trim(text)
    i = verify(t, '0123456789.')
    if (i == 0) then
      suf = ''
      i = len(t) + 1
    else
      suf = t(i:)
    end if
    read(t(1:i - 1), *, iostat=e) v
    if (e /= 0) call die('bad size: ' // t)
    select case (suf)
    case ('')
    case ('B')
    case ('K', 'k', 'KiB')
      v = v * 1024
    case ('M', 'm', 'MiB')
      v = v * 1024 * 1024
    case default
      call die('bad size: ' // t)
    end select
    parse_size = int(v, int64)
  end function parse_size

  subroutine parse_options()
    integer :: i, nargs, p, q
    character(len=512) :: a, v
    character(len=:), allocatable :: list
    list = ''
    nargs = command_argument_count()
    i = 1
    do while (i <= nargs)
      call get_command_argument(i, a)
      select case (trim(a))
      case ('--quick')
        quick = .true.
      case ('--header')
        header = .true.
      case ('--out', '--placement', '--sizes', '--batch-us', '--reps', '--only')
        if (i == nargs) call die('missing value for ' // trim(a))
        i = i + 1
        call get_command_argument(i, v)
        select case (trim(a))
        case ('--out')
          outfile = v
        case ('--placement')
          want_placement = v
        case ('--sizes')
          list = trim(v) // ','
          allocate(sizes(0))
          p = 1
          do
            q = index(list(p:), ',')
            if (q == 0) exit
            if (q > 1) sizes = [sizes, parse_size(list(p:p + q - 2))]
            p = p + q
            if (p > len(list)) exit
          end do
        case ('--batch-us')
          read(v, *) batch_us
        case ('--reps')
          read(v, *) reps_opt
        case ('--only')
          ! accepted for compatibility with the C programs: every row here is dart-fortran
        end select
      case ('--help', '-h')
        if (rank == 0) write(output_unit, '(a)') 'options: [--quick] [--header] [--out FILE] ' // &
          '[--placement node|remote] [--sizes 8,1K,1M] [--batch-us US] [--reps R]'
        call dart_exit()
        stop
      case default
        call die('unknown option ' // trim(a))
      end select
      i = i + 1
    end do
    if (.not. allocated(sizes)) then
      if (quick) then
        sizes = [8_int64, 1024_int64, 65536_int64, 1048576_int64]
      else
        sizes = [8_int64, 64_int64, 1024_int64, 8192_int64, 65536_int64, 1048576_int64, &
                 4194304_int64]
      end if
    end if
  end subroutine parse_options

end program bench_latency_f
