! heat_common: the shared pieces of the Fortran heat examples (heat2d.f90, heat3d.f90),
! with exactly the rules of examples/cpp/heat_common.h and the Python twins:
!
!  - command line: --nx --ny [--nz] --iters --mode blocking|nonblocking|notify [--out FILE];
!  - output: the final global field as raw little-endian float64 in C order (the last C
!    index varies fastest: a Fortran array whose FIRST index is that C index), written by
!    unit 0;
!  - checksum: the plain left-to-right sum of that array in file order.
!
! The process grid and the blocks are the distributed arrays' (dart_array_create chooses
! them by the rules the examples used to compute here: MPI_Dims_create's grid, n / p
! points per block with the first n % p one larger).
module heat_common
  use, intrinsic :: iso_fortran_env, only: int8, int32, int64, real64, error_unit
  use dart
  implicit none
  private
  public :: heat_args, parse_args, create_fields, checksum, write_field, wtime, max_over_units
  public :: median

  type :: heat_args
    integer :: nx = 0, ny = 0, nz = 0, iters = 0
    logical :: nonblocking = .false.
    logical :: notify = .false.              ! --mode notify: the notified exchange
    character(len=:), allocatable :: mode
    character(len=:), allocatable :: out
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
      ' --iters N --mode blocking|nonblocking|notify [--out FILE]'
    call dart_exit()
    stop 2
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
  !> the notified exchange for --mode notify and gets otherwise. A grid the units cannot
  !> share (fewer points than processes in a dimension) ends the program with status 2
  !> and the core's reason, as a bad command line does.
  subroutine create_fields(prog, args, shape, field)
    character(len=*), intent(in) :: prog
    type(heat_args), intent(in) :: args
    integer, intent(in) :: shape(:)
    type(dart_array), intent(inout) :: field(0:1)
    character(len=512) :: msg
    integer :: k, st, exchange, me
    exchange = DART_ARRAY_EXCHANGE_GET
    if (args%notify) exchange = DART_ARRAY_EXCHANGE_NOTIFY
    do k = 0, 1
      call dart_array_create(field(k), DART_TYPE_DOUBLE, shape, halo=[1], exchange=exchange, &
                             stat=st, errmsg=msg)
      if (st /= DART_OK) then       ! the same on every unit: the creation agrees
        call dart_myid(me)
        if (me == 0) write(error_unit, '(a)') prog // ': ' // trim(msg)
        call dart_exit()
        stop 2
      end if
    end do
  end subroutine create_fields

  !> The left-to-right sum in memory (= file) order.
  real(real64) function checksum(field)
    real(real64), intent(in) :: field(:)
    integer :: i
    checksum = 0
    do i = 1, size(field)
      checksum = checksum + field(i)
    end do
  end function checksum

  !> Raw little-endian float64 (the host must be little-endian).
  subroutine write_field(path, field)
    character(len=*), intent(in) :: path
    real(real64), intent(in) :: field(:)
    integer :: u, ios
    if (len(path) == 0) return
    if (transfer(1_int32, 0_int8) /= 1_int8) then
      write(error_unit, '(a)') 'the output format is little-endian float64; this host is not'
      call dart_abort(3)
    end if
    open(newunit=u, file=path, access='stream', form='unformatted', status='replace', &
         action='write', iostat=ios)
    if (ios == 0) write(u, iostat=ios) field
    if (ios == 0) close(u, iostat=ios)
    if (ios /= 0) then
      write(error_unit, '(a)') 'cannot write ' // path
      call dart_abort(3)
    end if
  end subroutine write_field

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
