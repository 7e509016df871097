! SPDX-License-Identifier: BSD-3-Clause
! heat_common: the shared pieces of the Fortran heat examples (heat2d.f90, heat3d.f90),
! with exactly the rules of examples/cpp/heat_common.h and the Python twins:
!
!  - command line: --nx --ny [--nz] --iters --mode blocking|nonblocking|notify
!    [--out FILE.npy] [--restart FILE.npy];
!  - output: the final global field as one NumPy .npy file (dart_array_save: every unit
!    writes its block; the bytes of np.save of the whole field), C order (the last C index
!    varies fastest: a Fortran array whose FIRST index is that C index); --restart FILE
!    starts from such a file (dart_array_load, on any number of units) instead of the
!    initial state, and --iters more iterations give the same bytes as an uninterrupted
!    run;
!  - checksum: the plain left-to-right sum of that array in file order.
!
! The process grid and the blocks are the distributed arrays' (dart_array_create chooses
! them by the rules the examples used to compute here: MPI_Dims_create's grid, n / p
! points per block with the first n % p one larger).
module heat_common
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use dart
  implicit none
  private
  public :: heat_args, parse_args, create_fields, save_field, checksum, wtime, max_over_units
  public :: median

  type :: heat_args
    integer :: nx = 0, ny = 0, nz = 0, iters = 0
    logical :: nonblocking = .false.
    logical :: notify = .false.              ! --mode notify: the notified exchange
    character(len=:), allocatable :: mode
    character(len=:), allocatable :: out       ! --out: the final field (dart_array_save)
    character(len=:), allocatable :: restart   ! --restart: the first iterate (dart_array_load)
  end type heat_args

contains

  subroutine usage(prog, three_d, why)
    character(len=*), intent(in) :: prog, why
    logical, intent(in) :: three_d
    character(len=:), allocatable :: nz
    nz = ''
    if (three_d) nz = ' --nz N'
    write(error_unit, '(a)') prog // ': ' // why
    write(error_unit, '(a)') 'usage: ' // prog // ' --nx N --ny N' // nz // &
      ' --iters N --mode blocking|nonblocking|notify [--out FILE.npy] [--restart FILE.npy]'
    call dart_exit()
    stop 2, quiet=.true.   ! no "STOP 2" line from every unit (Fortran 2018)
  end subroutine usage

  function parse_args(prog, three_d) result(a)
    character(len=*), intent(in) :: prog
    logical, intent(in) :: three_d
    type(heat_args) :: a
    character(len=4096) :: k, v
    character(len=:), allocatable :: mode
    integer :: i, n, ios, nargs
    mode = 'blocking'
    a%out = ''
    a%restart = ''
    nargs = command_argument_count()
    i = 1
    do while (i <= nargs)
      call get_command_argument(i, k)
      if (i + 1 > nargs) call usage(prog, three_d, 'missing value after ' // trim(k))
      call get_command_argument(i + 1, v)
      i = i + 2
      select case (trim(k))
      case ('--mode')
        mode = trim(v)
      case ('--out')
        a%out = trim(v)
      case ('--restart')
        a%restart = trim(v)
      case ('--nx', '--ny', '--nz', '--iters')
        if (verify(trim(v), '-0123456789') /= 0 .or. len_trim(v) == 0) &
          call usage(prog, three_d, trim(k) // ' needs a whole number')
        read(v, *, iostat=ios) n
        if (ios /= 0) call usage(prog, three_d, trim(k) // ' needs a whole number')
        select case (trim(k))
        case ('--nx')
          a%nx = n
        case ('--ny')
          a%ny = n
        case ('--nz')
          if (.not. three_d) call usage(prog, three_d, 'unknown option --nz')
          a%nz = n
        case ('--iters')
          a%iters = n
        end select
      case default
        call usage(prog, three_d, 'unknown option ' // trim(k))
      end select
    end do
    if (mode /= 'blocking' .and. mode /= 'nonblocking' .and. mode /= 'notify') &
      call usage(prog, three_d, '--mode must be blocking, nonblocking or notify')
    a%nonblocking = mode == 'nonblocking'
    a%notify = mode == 'notify'
    a%mode = mode
    if (a%nx < 3 .or. a%ny < 3 .or. (three_d .and. a%nz < 3)) &
      call usage(prog, three_d, 'every grid size must be at least 3')
    if (a%iters < 0) call usage(prog, three_d, '--iters must be >= 0')
  end function parse_args

  !> The two iterates (current and next) of an example: arrays of float64 of the given
  !> Fortran shape (the C shape reversed), one ghost point on every side, not periodic,
  !> the notified exchange for --mode notify and gets otherwise. With --restart the first
  !> is the file's field (dart_array_load with the same options, any number of units
  !> wrote it; the ghosts are zero), and a file of another shape is refused. A grid the
  !> units cannot share (fewer points than processes in a dimension), a file that cannot
  !> be loaded or one of another shape ends the program with status 2 and the reason, as
  !> a bad command line does.
  subroutine create_fields(prog, args, shape, field)
    character(len=*), intent(in) :: prog
    type(heat_args), intent(in) :: args
    integer, intent(in) :: shape(:)
    type(dart_array), intent(inout) :: field(0:1)
    character(len=512) :: msg
    character(len=64) :: points
    integer :: k, st, exchange, nd, got(4)
    exchange = DART_ARRAY_EXCHANGE_GET
    if (args%notify) exchange = DART_ARRAY_EXCHANGE_NOTIFY
    do k = 0, 1
      if (k == 0 .and. len(args%restart) > 0) then
        call dart_array_load(field(k), args%restart, halo=[1], exchange=exchange, &
                             dtype=DART_TYPE_DOUBLE, stat=st, errmsg=msg)
      else
        call dart_array_create(field(k), DART_TYPE_DOUBLE, shape, halo=[1], &
                               exchange=exchange, stat=st, errmsg=msg)
      end if
      if (st /= DART_OK) call fail(prog, trim(msg))   ! the same on every unit: both agree
    end do
    if (len(args%restart) == 0) return
    got = 0
    call dart_array_query(field(0), ndim=nd, shape=got)
    if (nd /= size(shape) .or. any(got(1:size(shape)) /= shape)) then
      write(points, '(i0, *(:, " x ", i0))') shape(size(shape):1:-1)   ! "nx x ny", C order
      call fail(prog, '--restart ' // args%restart // ' is not a ' // trim(points) // ' field')
    end if
  end subroutine create_fields

  !> Collective: the field as one .npy file (dart_array_save); a failure (the same on every
  !> unit) ends the program with status 2 and the reason.
  subroutine save_field(prog, field, path)
    character(len=*), intent(in) :: prog, path
    type(dart_array), intent(in) :: field
    character(len=512) :: msg
    integer :: st
    call dart_array_save(field, path, stat=st, errmsg=msg)
    if (st /= DART_OK) call fail(prog, trim(msg))
  end subroutine save_field

  !> Unit 0 prints "<prog>: <why>", every unit ends DART and stops with status 2 (called
  !> by every unit alike: for failures the units agree on).
  subroutine fail(prog, why)
    character(len=*), intent(in) :: prog, why
    integer :: me
    call dart_myid(me)
    if (me == 0) write(error_unit, '(a)') prog // ': ' // why
    call dart_exit()
    stop 2, quiet=.true.   ! no "STOP 2" line from every unit (Fortran 2018)
  end subroutine fail

  !> The left-to-right sum in memory (= file) order.
  real(real64) function checksum(field)
    real(real64), intent(in) :: field(:)
    integer :: i
    checksum = 0
    do i = 1, size(field)
      checksum = checksum + field(i)
    end do
  end function checksum

  !> Seconds on a monotonic clock.
  real(real64) function wtime()
    integer(int64) :: t, rate
    call system_clock(t, rate)
    wtime = real(t, real64) / real(rate, real64)
  end function wtime

  !> The largest of x over all units (for the timing report).
  real(real64) function max_over_units(x)
    real(real64), intent(in) :: x
    real(real64) :: r
    call dart_allreduce(x, r, DART_OP_MAX, DART_TEAM_ALL)
    max_over_units = r
  end function max_over_units

  !> The median of x (the mean of the two middle values for an even size; 0 if empty),
  !> as NumPy's and the C++ report's: a Shell sort of a copy.
  real(real64) function median(x)
    real(real64), intent(in) :: x(:)
    real(real64), allocatable :: v(:)
    real(real64) :: t
    integer :: gap, i, j, m
    m = size(x)
    median = 0
    if (m == 0) return
    v = x
    gap = m / 2
    do while (gap > 0)
      do i = gap + 1, m
        t = v(i)
        j = i
        do while (j > gap)
          if (v(j - gap) <= t) exit
          v(j) = v(j - gap)
          j = j - gap
        end do
        v(j) = t
      end do
      gap = gap / 2
    end do
    median = v(m / 2 + 1)
    if (mod(m, 2) == 0) median = (v(m / 2) + v(m / 2 + 1)) / 2
  end function median

end module heat_common
