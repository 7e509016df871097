! SPDX-License-Identifier: BSD-3-Clause
! ftest_array_io: array files in Fortran (dart_array_save, dart_array_load and
! dart_array_file_info of module `dart`, issue 29). Everything per dimension is in Fortran
! order, the reverse of the .npy shape:
!  - round trips for ranks 1-4 and every element type (complex included, and the C types
!    that share a Fortran kind), odd shapes: saved with one decomposition (all units along
!    one dimension, the default grid, given uneven blocks; ghosts of 0 or 1), loaded with
!    another (the grid along the other end, given uneven blocks, periodic ghosts, a box
!    stencil, both exchanges, dtype= given or not): every byte of every interior, the
!    ghosts zero after the load and the neighbours' points after an update;
!  - the bytes: the header np.save writes for the C shape (13, 11) of a Fortran [11, 13]
!    field, its data in C order point by point, the gathered field, and the file the C API
!    writes for the same field (the raw bind(C) interfaces, C order): byte for byte; a
!    complex 3D field through file_info and back into typed pointers;
!  - a save on all units loaded on a sub-team of fewer units with given uneven blocks;
!  - refusals with stat on every unit and the same message everywhere: not a .npy file,
!    truncated data and header, a format version, fortran_order True, unsupported dtypes,
!    0 and 5 dimensions, an extent 0, a structured dtype, a missing file, dtype= and
!    components= that differ from the file's, lists of another rank, a grid that cannot
!    split the shape, a bad argument on one unit; saves into a folder that does not exist,
!    onto a directory, to different paths, into /proc, of points .npy cannot hold: no
!    temporary file left, the old content kept;
!  - a failed write (argument `fault`, run as ftest_array_io.fault with
!    DART_FAULT=file_write:1) keeps the old checkpoint; without the hook the same code
!    checks an overwrite.
! The files live in a fresh folder under /tmp (the C helpers of ftest_array_io_c.c).
!
! dart-test: TIMEOUT 300
module ftest_array_io_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int64, real64
  use mpi_f08, only: MPI_Bcast, MPI_CHARACTER
  use dart
  use dart_c_binding, only: c_dart_array_info, c_dart_array_get_info, dartf_array_ptr
  use ftest
  implicit none

  interface
    function ftest_mkdtemp(templ) bind(C, name='ftest_mkdtemp') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(inout) :: templ(*)
      integer(c_int) :: rc
    end function
    function ftest_mkdir(path) bind(C, name='ftest_mkdir') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: rc
    end function
    function ftest_listing(dir, out, cap) bind(C, name='ftest_listing') result(n)
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(in) :: dir(*)
      character(kind=c_char), intent(inout) :: out(*)
      integer(c_size_t), value :: cap
      integer(c_int) :: n
    end function
    function ftest_remove_tree(dir) bind(C, name='ftest_remove_tree') result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: dir(*)
      integer(c_int) :: rc
    end function
  end interface

  !> The element types: the eight Fortran buffer types, then DART_TYPE_UINT and _LONG,
  !> which share integer(int32) and integer(int64) with _INT and _LONGLONG.
  integer, parameter :: NTYPES = 10
  integer(DART_DATATYPE_KIND), parameter :: TYPE_DART(NTYPES) = [DART_TYPE_BYTE, DART_TYPE_SHORT, &
    DART_TYPE_INT, DART_TYPE_LONGLONG, DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_FLOAT, &
    DART_TYPE_DOUBLE, DART_TYPE_UINT, DART_TYPE_LONG]
  integer, parameter :: TYPE_COMPS(NTYPES) = [1, 1, 1, 1, 1, 1, 2, 2, 1, 1]
  character(len=16), parameter :: TYPE_LABEL(NTYPES) = [character(len=16) :: 'integer(int8)', &
    'integer(int16)', 'integer(int32)', 'integer(int64)', 'real(real32)', 'real(real64)', &
    'complex(real32)', 'complex(real64)', 'DART_TYPE_UINT', 'DART_TYPE_LONG']

  !> What walk does: fill my interior with the pattern and my ghosts with 0xEE, or count
  !> the bytes that differ from the pattern inside and from zero in the ghosts, or from
  !> the pattern of the wrapped global index everywhere (after a periodic box update).
  integer, parameter :: FILL = 0, CHECK_ZERO = 1, CHECK_ALL = 2

  character(len=:), allocatable :: dir   ! this job's folder

contains

  !> A fresh folder under /tmp, made by unit 0 and known to every unit. Collective.
  subroutine make_job_folder()
    character(len=64) :: templ
    integer :: ierr
    templ = ''
    if (me == 0) then
      templ = '/tmp/dart-fio-XXXXXX' // c_null_char
      if (ftest_mkdtemp(templ) /= 0) templ = ''
      templ = templ(1:index(templ, c_null_char) - 1)
    end if
    call MPI_Bcast(templ, len(templ), MPI_CHARACTER, 0, ftest_comm(), ierr)
    dir = trim(templ)
    call check(len(dir) > 0, 'a folder under /tmp')
  end subroutine make_job_folder

  !> The whole content of a file ('' if it cannot be read).
  function read_file(path) result(s)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: s
    integer :: u, ios
    integer(int64) :: n
    s = ''
    inquire(file=path, size=n)
    if (n <= 0) return
    open(newunit=u, file=path, access='stream', form='unformatted', action='read', &
         status='old', iostat=ios)
    if (ios /= 0) return
    deallocate(s)
    allocate(character(len=n) :: s)
    read(u, iostat=ios) s
    close(u)
    if (ios /= 0) s = ''
  end function read_file

  subroutine write_file(path, s)
    character(len=*), intent(in) :: path, s
    integer :: u
    open(newunit=u, file=path, access='stream', form='unformatted', action='write', &
         status='replace')
    write(u) s
    close(u)
  end subroutine write_file

  !> The names in a folder, sorted, each followed by a new line ('?' if it cannot be read).
  function listing(path) result(s)
    character(len=*), intent(in) :: path
    character(len=:), allocatable :: s
    character(kind=c_char) :: buf(4096)
    integer :: n, k
    n = ftest_listing(path // c_null_char, buf, int(size(buf), c_size_t))
    s = ''
    if (n < 0) s = '?'
    if (n <= 0) return
    do k = 1, size(buf)
      if (buf(k) == c_null_char) exit
      s = s // buf(k)
    end do
  end function listing

  !> A failure must read the same on every unit (collective).
  subroutine check_same_everywhere(msg, what)
    character(len=*), intent(in) :: msg, what
    character(len=len(msg)) :: first
    integer :: ierr
    first = msg
    call MPI_Bcast(first, len(first), MPI_CHARACTER, 0, ftest_comm(), ierr)
    call check(first == msg, what // ': the same message on every unit, not "' // trim(msg) // &
               '" (unit 0: "' // trim(first) // '")')
  end subroutine check_same_everywhere

  !> Bytes of one element of a DART basic type (those of TYPES).
  pure integer function type_size(t)
    integer(DART_DATATYPE_KIND), intent(in) :: t
    type_size = 8
    if (t == DART_TYPE_BYTE) type_size = 1
    if (t == DART_TYPE_SHORT) type_size = 2
    if (t == DART_TYPE_INT .or. t == DART_TYPE_UINT .or. t == DART_TYPE_FLOAT) type_size = 4
  end function type_size

  !> Byte k (0-based) of the point of C-order linear global index lin, points of psize
  !> bytes: a pattern every type holds (bytes, not values; as tests/cpp/test_array_io.cc).
  pure integer(int8) function pattern(lin, k, psize)
    integer(int64), intent(in) :: lin
    integer, intent(in) :: k, psize
    pattern = int(mod(lin * 31 + k * 7 + psize, 127_int64), int8)
  end function pattern

  !> Walks my block with its ghosts in memory order (the C binding's info: C order, the
  !> same memory as the Fortran pointers) and fills or checks it (FILL, CHECK_ZERO,
  !> CHECK_ALL above). Returns the number of wrong bytes (-1: no info).
  integer(int64) function walk(a, mode) result(bad)
    type(dart_array), intent(in) :: a
    integer, intent(in) :: mode
    type(c_dart_array_info) :: in
    integer(int8), pointer :: mem(:)
    integer(int64) :: total, off, rest, lin, mul, g, e
    integer :: d, k, psize
    integer(int8) :: want
    logical :: inside
    bad = -1
    if (c_dart_array_get_info(dartf_array_ptr(a), in) /= DART_OK) return
    bad = 0
    psize = type_size(in%dtype) * in%components
    total = product(in%local_shape(1:in%ndim))
    call c_f_pointer(in%local, mem, [total * psize])
    do off = 0, total - 1
      rest = off
      lin = 0
      mul = 1
      inside = .true.
      do d = in%ndim, 1, -1
        e = in%local_shape(d)
        g = in%lo(d) - in%halo_lo(d) + mod(rest, e)
        rest = rest / e
        inside = inside .and. g >= in%lo(d) .and. g < in%hi(d)
        lin = lin + modulo(g, in%shape(d)) * mul
        mul = mul * in%shape(d)
      end do
      do k = 0, psize - 1
        want = pattern(lin, k, psize)
        select case (mode)
        case (FILL)
          if (.not. inside) want = -18_int8   ! 0xEE
          mem(off * psize + k + 1) = want
        case (CHECK_ZERO)
          if (.not. inside) want = 0
          if (mem(off * psize + k + 1) /= want) bad = bad + 1
        case default
          if (mem(off * psize + k + 1) /= want) bad = bad + 1
        end select
      end do
    end do
  end function walk

  !> p block extents over the grid coordinates of a dimension of e points, uneven (1 or 2
  !> points, the last one the rest).
  function uneven(e, p) result(b)
    integer, intent(in) :: e, p
    integer :: b(p), c
    do c = 1, p - 1
      b(c) = 1 + mod(c, 2)
    end do
    b(p) = e - sum(b(1:p - 1))
  end function uneven

  !> Case k of the round trips: rank nd, element type t, saved and loaded with the
  !> decompositions of `variant` (0..2). Fortran dimensions 1 and nd have at least 2
  !> points per unit, so that all units fit along either.
  subroutine round_trip(k, nd, variant, t)
    integer, intent(in) :: k, nd, variant, t
    type(dart_array) :: a, b
    integer :: shp(4), procs(4), hlo(4), hhi(4), qshape(4), d, n, st, comps
    integer(DART_DATATYPE_KIND) :: qtype, want_type
    integer(int64) :: bad
    character(len=400) :: msg
    character(len=:), allocatable :: path, name
    n = nunits
    name = 'case ' // itoa(k) // ' (rank ' // itoa(nd) // ', ' // trim(TYPE_LABEL(t)) // ')'
    do d = 1, nd
      if (d == 1 .or. d == nd) then
        shp(d) = n * (2 + mod(k + d, 3)) + mod(d + variant, 2)
      else
        shp(d) = 2 + mod(k + d, 3) + mod(d + variant, 2)
      end if
      hlo(d) = mod(d + k, 2)
      hhi(d) = mod(d + k + 1, 2)
    end do
    ! saved: all units along Fortran dimension nd (C's first) with ghosts of 0 or 1, the
    ! default grid, or given uneven blocks along dimension nd
    procs = 1
    procs(nd) = n
    msg = ''
    select case (variant)
    case (0)
      call dart_array_create(a, TYPE_DART(t), shp(1:nd), procs=procs(1:nd), halo_lo=hlo(1:nd), &
                             halo_hi=hhi(1:nd), components=TYPE_COMPS(t), stat=st, errmsg=msg)
    case (1)
      call dart_array_create(a, TYPE_DART(t), shp(1:nd), halo=[1], components=TYPE_COMPS(t), stat=st, &
                             errmsg=msg)
    case default
      call dart_array_create(a, TYPE_DART(t), shp(1:nd), procs=procs(1:nd), &
                             blocks=[shp(1:nd - 1), uneven(shp(nd), n)], halo_lo=[1], &
                             halo_hi=[0], components=TYPE_COMPS(t), stat=st, errmsg=msg)
    end select
    call check(st == DART_OK, name // ': create: ' // trim(msg))
    if (st /= DART_OK) return
    call check(walk(a, FILL) == 0, name // ': fill')
    path = dir // '/rt-' // itoa(k) // '.npy'
    call dart_array_save(a, path, stat=st, errmsg=msg)
    call check(st == DART_OK, name // ': save: ' // trim(msg))
    ! loaded: the default grid, all units along Fortran dimension 1, or given uneven
    ! blocks along dimension 1; periodic ghosts of 1 everywhere, a box stencil
    procs = 1
    procs(1) = n
    select case (variant)
    case (0)
      call dart_array_load(b, path, halo=[1], periodic=[.true.], stencil=DART_STENCIL_BOX, &
                           exchange=DART_ARRAY_EXCHANGE_NOTIFY, stat=st, errmsg=msg)
    case (1)
      call dart_array_load(b, path, procs=procs(1:nd), halo_lo=[1], halo_hi=[1], &
                           periodic=[(.true., d = 1, nd)], stencil=DART_STENCIL_BOX, &
                           exchange=DART_ARRAY_EXCHANGE_GET, stat=st, errmsg=msg)
    case default
      call dart_array_load(b, path, procs=procs(1:nd), blocks=[uneven(shp(1), n), shp(2:nd)], &
                           halo=[1], periodic=[.true.], stencil=DART_STENCIL_BOX, &
                           dtype=TYPE_DART(t), components=TYPE_COMPS(t), stat=st, errmsg=msg)
    end select
    call check(st == DART_OK, name // ': load: ' // trim(msg))
    if (st == DART_OK) then
      qshape = 0
      call dart_array_query(b, shape=qshape, dtype=qtype, components=comps, procs=procs)
      want_type = TYPE_DART(t)       ! '<i8' is DART_TYPE_LONG unless dtype= says _LONGLONG
      if (want_type == DART_TYPE_LONGLONG .and. variant /= 2) want_type = DART_TYPE_LONG
      call check(all(qshape(1:nd) == shp(1:nd)), name // ': the loaded shape (Fortran order)')
      call check(qtype == want_type .and. comps == TYPE_COMPS(t), name // ': the loaded point type')
      if (variant /= 0) call check(procs(1) == n, name // ': the loaded grid')
      bad = walk(b, CHECK_ZERO)
      call check(bad == 0, name // ': ' // itoa(int(bad)) // ' wrong bytes after the load ' // &
                 '(interior: the saved ones; ghosts: zero)')
      call dart_array_update_halo(b)
      bad = walk(b, CHECK_ALL)
      call check(bad == 0, name // ': ' // itoa(int(bad)) // ' wrong bytes after the update')
      call dart_array_destroy(b)
    end if
    call dart_array_destroy(a)
  end subroutine round_trip

end module ftest_array_io_support

program ftest_array_io
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real64
  use dart
  use dart_c_binding, only: c_dart_array_spec, c_dart_array_spec_init, c_dart_array_create, &
                            c_dart_array_save, c_dart_array_destroy
  use ftest
  use ftest_array_io_support
  implicit none
  character(len=16) :: arg
  integer :: st

  call ftest_start('ftest_array_io')
  call make_job_folder()
  arg = ''
  if (command_argument_count() > 0) call get_command_argument(1, arg)
  if (arg /= 'fault') then
    call ftest_section('round trips')
    call round_trips()
    call ftest_section('the bytes of np.save and of C')
    call bytes_of_c()
    call ftest_section('complex 3D')
    call complex_3d()
    call ftest_section('save on all, load on a sub-team')
    call sub_team()
    call ftest_section('refused loads')
    call refused_loads()
    call ftest_section('refused saves')
    call refused_saves()
  end if
  call ftest_section('a failed write keeps the old file')
  call failed_write()

  call dart_barrier(DART_TEAM_ALL)
  if (me == 0) then
    st = ftest_remove_tree(dir // c_null_char)
    call check(st == 0, 'the job''s folder removed')
  end if
  call ftest_finish()

contains

  !> Ranks 1-4, three decompositions each, the element types rotating (every type
  !> occurs, complex in ranks 1, 3 and 4). Oversubscribed (more units than cores), where a
  !> case costs most of a second of scheduling under MPICH, one case per rank runs (every
  !> decomposition still does, complex too; the 1- and 2-unit runs have every type).
  subroutine round_trips()
    integer :: k, nd, variant, t
    logical :: reduced
    reduced = ftest_oversubscribed()
    do k = 0, 11
      nd = k / 3 + 1
      variant = mod(k, 3)
      t = mod(7 * k, NTYPES) + 1
      if (reduced .and. variant /= mod(nd, 3)) cycle
      call round_trip(k, nd, variant, t)
    end do
  end subroutine round_trips

  !> The field u[i, j] = 1000 i + j + 0.25 of C shape (13, 11): written from Fortran as the
  !> Fortran [11, 13] array p(j, i) (ghosts, the default grid), and from C through the raw
  !> bind(C) interfaces as a C-order (13, 11) array (no ghosts, all units along C
  !> dimension 1). Both files, byte for byte; the header np.save writes (128 bytes: magic,
  !> version 1.0, header length 118, the dict, spaces, a new line); the data, point by
  !> point in C order, and as the gathered field; file_info in Fortran order.
  subroutine bytes_of_c()
    type(dart_array) :: af, ac
    type(c_dart_array_spec) :: spec
    real(real64), pointer :: p(:, :), q(:, :)
    real(real64), allocatable :: glob(:, :)
    real(real64) :: x
    character(len=:), allocatable :: ff, fc, sf, sc
    character(len=*), parameter :: DICT = &
      "{'descr': '<f8', 'fortran_order': False, 'shape': (13, 11), }"
    integer :: i, j, st, lo(2), hi(2), shp(4), nd, comps, bad
    integer(DART_DATATYPE_KIND) :: t
    ff = dir // '/fortran.npy'
    fc = dir // '/c.npy'
    call dart_array_create(af, DART_TYPE_DOUBLE, [11, 13], halo=[1], stat=st)
    call check_ok(st, 'Fortran [11, 13]: create')
    call dart_array_interior(af, p)
    call dart_array_query(af, lo=lo, hi=hi)
    do i = lo(2), hi(2)
      do j = lo(1), hi(1)
        p(j, i) = 1000 * i + j + 0.25_real64
      end do
    end do
    call dart_array_save(af, ff, stat=st)
    call check_ok(st, 'Fortran [11, 13]: save')
    ! the same field in C: spec in C order, the block as a C-order (rows, 11) matrix, which
    ! is a Fortran (11, rows) one: q(j, i)
    st = c_dart_array_spec_init(spec)
    spec%dtype = DART_TYPE_DOUBLE
    spec%ndim = 2
    spec%shape(1:2) = [13, 11]
    spec%procs(1:2) = [1, nunits]
    if (nunits > 11) spec%procs(1:2) = 0
    st = c_dart_array_create(spec, ac)
    call check(st == DART_OK, 'C (13, 11): create')
    if (st == DART_OK) then
      call dart_array_interior(ac, q)       ! Fortran order: q(j, i), global bounds
      call dart_array_query(ac, lo=lo, hi=hi)
      do i = lo(2), hi(2)
        do j = lo(1), hi(1)
          q(j, i) = 1000 * i + j + 0.25_real64
        end do
      end do
      call check(c_dart_array_save(dartf_array_ptr(ac), fc // c_null_char) == DART_OK, &
                 'C (13, 11): save')
      call check(c_dart_array_destroy(ac) == DART_OK, 'C (13, 11): destroy')
    end if
    if (me == 0) then
      allocate(glob(0:10, 0:12))
    else
      allocate(glob(0, 0))
    end if
    call dart_array_gather(af, glob, 0)
    if (me == 0) then
      sf = read_file(ff)
      sc = read_file(fc)
      call check(len(sf) == 128 + 13 * 11 * 8, 'the file of Fortran [11, 13]: 128 + 1144 bytes')
      call check(sf == sc, 'Fortran and C write the same bytes for the same field')
      if (len(sf) == 128 + 13 * 11 * 8) then
        call check(sf(1:10) == char(147) // 'NUMPY' // achar(1) // achar(0) // achar(118) // &
                   achar(0), 'magic, version 1.0, header length 118')
        call check(sf(11:10 + len(DICT)) == DICT, 'the dict: C shape (13, 11), C order: ' // &
                   sf(11:10 + len(DICT)))
        call check(verify(sf(11 + len(DICT):127), ' ') == 0 .and. sf(128:128) == achar(10), &
                   'padded with spaces to 128 bytes, then a new line')
        bad = 0
        do i = 0, 12
          do j = 0, 10
            x = transfer(sf(129 + 8 * (11 * i + j):136 + 8 * (11 * i + j)), x)
            if (x /= 1000 * i + j + 0.25_real64) bad = bad + 1
          end do
        end do
        call check(bad == 0, 'the data in C order: point [i, j] = p(j, i) at 11 i + j')
        call check(sf(129:) == transfer(glob, repeat(' ', size(glob) * 8)), &
                   'the data are the bytes of the gathered Fortran array')
      end if
    end if
    shp = 0
    call dart_array_file_info(ff, shape=shp, ndim=nd, dtype=t, components=comps, stat=st)
    call check(st == DART_OK .and. nd == 2 .and. all(shp(1:2) == [11, 13]) .and. &
               t == DART_TYPE_DOUBLE .and. comps == 1, 'file_info: [11, 13] (Fortran order), ' // &
               'DART_TYPE_DOUBLE x 1')
    call dart_array_destroy(af)
  end subroutine bytes_of_c

  !> complex(real64) [3, 4, 5] (C (5, 4, 3), '<c16'): z(k, j, i) = (i, 10 j + k), saved on
  !> the default grid, file_info, loaded with dtype=DART_TYPE_DOUBLE, components=2 on
  !> another grid and read back through typed pointers; a real dtype is refused.
  subroutine complex_3d()
    type(dart_array) :: a, b
    complex(real64), pointer :: z(:, :, :), w(:, :, :)
    character(len=:), allocatable :: path, s
    character(len=400) :: msg
    integer :: i, j, k, lo(3), hi(3), shp(4), nd, comps, st, bad
    integer(DART_DATATYPE_KIND) :: t
    path = dir // '/complex.npy'
    call dart_array_create(a, DART_TYPE_DOUBLE, [3, 4, 5], components=2, halo=[1], stat=st)
    call check_ok(st, 'complex: create')
    if (st /= DART_OK) return
    call dart_array_interior(a, z)
    call dart_array_query(a, lo=lo, hi=hi)
    do i = lo(3), hi(3)
      do j = lo(2), hi(2)
        do k = lo(1), hi(1)
          z(k, j, i) = cmplx(i, 10 * j + k, real64)
        end do
      end do
    end do
    call dart_array_save(a, path, stat=st)
    call check_ok(st, 'complex: save')
    if (me == 0) then
      s = read_file(path)
      call check(index(s, "{'descr': '<c16', 'fortran_order': False, 'shape': (5, 4, 3), }") == &
                 11, 'complex: the header of a (5, 4, 3) complex128 array')
    end if
    shp = 0
    call dart_array_file_info(path, shape=shp, ndim=nd, dtype=t, components=comps, stat=st)
    call check(st == DART_OK .and. nd == 3 .and. all(shp(1:3) == [3, 4, 5]) .and. &
               t == DART_TYPE_DOUBLE .and. comps == 2, 'complex: file_info [3, 4, 5], ' // &
               'DART_TYPE_DOUBLE x 2')
    msg = ''
    call dart_array_load(b, path, procs=[nunits, 1, 1], dtype=DART_TYPE_DOUBLE, stat=st, &
                         errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', "'<c16', not '<f8'", &
                    'complex: a real dtype is refused')
    if (nunits <= 3) then
      call dart_array_load(b, path, procs=[nunits, 1, 1], halo_lo=[0, 1, 2], halo_hi=[1], &
                           dtype=DART_TYPE_DOUBLE, components=2, stat=st, errmsg=msg)
    else
      call dart_array_load(b, path, procs=[1, 1, nunits], halo_lo=[0, 1, 1], halo_hi=[1], &
                           dtype=DART_TYPE_DOUBLE, components=2, stat=st, errmsg=msg)
    end if
    call check(st == DART_OK, 'complex: load on another grid: ' // trim(msg))
    if (st == DART_OK) then
      call dart_array_interior(b, w)
      call dart_array_query(b, lo=lo, hi=hi)
      bad = 0
      do i = lo(3), hi(3)
        do j = lo(2), hi(2)
          do k = lo(1), hi(1)
            if (w(k, j, i) /= cmplx(i, 10 * j + k, real64)) bad = bad + 1
          end do
        end do
      end do
      call check(bad == 0, 'complex: every loaded point w(k, j, i) = (i, 10 j + k)')
      call dart_array_destroy(b)
    end if
    call dart_array_destroy(a)
  end subroutine complex_3d

  !> integer(int16) [5, 2n + 3] saved on all units, loaded on the first max(1, n - 1) units
  !> (a team of fewer units) with all of them along dimension 2 in given uneven blocks
  !> (dimension 1 first in blocks=) and ghosts: the interiors, ghosts zero.
  subroutine sub_team()
    type(dart_array) :: a, b
    type(dart_group) :: grp
    integer(DART_TEAM_KIND) :: team
    character(len=:), allocatable :: path
    character(len=400) :: msg
    integer :: u, m, st, e, procs(2)
    integer(int64) :: bad
    path = dir // '/team.npy'
    e = 2 * nunits + 3
    call dart_array_create(a, DART_TYPE_SHORT, [5, e], halo=[1], stat=st)
    call check_ok(st, 'sub-team: create on all')
    if (st /= DART_OK) return
    call check(walk(a, FILL) == 0, 'sub-team: fill')
    call dart_array_save(a, path, stat=st)
    call check_ok(st, 'sub-team: save on all')
    m = max(1, nunits - 1)
    call dart_group_create(grp)
    do u = 0, m - 1
      call dart_group_addmember(grp, u)
    end do
    team = DART_TEAM_NULL
    call dart_team_create(DART_TEAM_ALL, grp, team, stat=st)
    call check_ok(st, 'sub-team: dart_team_create')
    call dart_group_destroy(grp)
    if (team /= DART_TEAM_NULL) then
      msg = ''
      call dart_array_load(b, path, team=team, procs=[1, m], blocks=[5, uneven(e, m)], &
                           halo_lo=[2, 1], halo_hi=[1, 0], stat=st, errmsg=msg)
      call check(st == DART_OK, 'sub-team: load on ' // itoa(m) // ' units: ' // trim(msg))
      if (st == DART_OK) then
        call dart_array_query(b, procs=procs)
        call check(all(procs == [1, m]), 'sub-team: the grid asked for')
        bad = walk(b, CHECK_ZERO)
        call check(bad == 0, 'sub-team: ' // itoa(int(bad)) // ' wrong bytes')
        call dart_array_destroy(b)
      end if
      call dart_team_destroy(team)
    end if
    call dart_array_destroy(a)
  end subroutine sub_team

  !> The header of a .npy 1.0 file around `dict` (padded as np.save pads) and 56 bytes.
  function with_dict(dict) result(s)
    character(len=*), intent(in) :: dict
    character(len=:), allocatable :: s, d
    d = dict
    do while (mod(10 + len(d) + 1, 64) /= 0)
      d = d // ' '
    end do
    d = d // achar(10)
    s = char(147) // 'NUMPY' // achar(1) // achar(0) // achar(mod(len(d), 256)) // &
        achar(len(d) / 256) // d // repeat(achar(0), 56)
  end function with_dict

  !> Bad file k (1..NBAD) made from `good` (a saved 1D int32 array of 7 points): its name,
  !> its content and a part of the message that refuses it. From 6 on, a well-formed
  !> header around a dict DART refuses.
  subroutine bad_file(k, good, name, content, part)
    integer, intent(in) :: k
    character(len=*), intent(in) :: good
    character(len=:), allocatable, intent(inout) :: name, content, part
    character(len=*), parameter :: DICT_NAME(7) = [character(len=12) :: 'fortran.npy', &
      'u2.npy', 'big.npy', 'scalar.npy', 'five.npy', 'empty.npy', 'struct.npy']
    character(len=*), parameter :: DICT(7) = [character(len=80) :: &
      "{'descr': '<i4', 'fortran_order': True, 'shape': (7,), }", &
      "{'descr': '<u2', 'fortran_order': False, 'shape': (7,), }", &
      "{'descr': '>i4', 'fortran_order': False, 'shape': (7,), }", &
      "{'descr': '<i4', 'fortran_order': False, 'shape': (), }", &
      "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 7), }", &
      "{'descr': '<i4', 'fortran_order': False, 'shape': (0, 7), }", &
      "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (7,), }"]
    character(len=*), parameter :: DICT_PART(7) = [character(len=20) :: &
      'fortran_order: True', 'cannot hold', 'cannot hold', '0-dimensional', '5-dimensional', &
      'extent 0', 'not one DART reads']
    select case (k)
    case (1)
      name = 'text.npy'
      content = 'just some text, long enough to be read'
      part = 'not a .npy file'
    case (2)
      name = 'short.npy'
      content = char(147) // 'NU'
      part = 'not a .npy file'
    case (3)
      name = 'trunc.npy'
      content = good(1:len(good) - 3)
      part = 'truncated'
    case (4)
      name = 'trunchead.npy'
      content = good(1:30)
      part = 'truncated'
    case (5)
      name = 'version.npy'
      content = char(147) // 'NUMPY' // char(9) // char(0) // good(9:)
      part = 'format version'
    case default
      name = trim(DICT_NAME(k - 5))
      content = with_dict(trim(DICT(k - 5)))
      part = trim(DICT_PART(k - 5))
    end select
  end subroutine bad_file

  !> Every refusal of a load, with stat, on every unit, with the same message; u keeps
  !> what it held; file_info refuses the same files (a local call).
  subroutine refused_loads()
    integer, parameter :: NBAD = 12
    type(dart_array) :: g, u, keep
    integer(int32), pointer :: p(:)
    character(len=:), allocatable :: good, goodbytes, name, content, part
    character(len=400) :: msg
    integer :: k, st, lo(1), hi(1), i, last, shp(2), none(0)
    last = nunits - 1
    good = dir // '/good.npy'
    call dart_array_create(g, DART_TYPE_INT, [7], stat=st)
    call check_ok(st, 'refusals: a good array')
    if (st /= DART_OK) return
    call dart_array_interior(g, p)
    call dart_array_query(g, lo=lo, hi=hi)
    do i = lo(1), hi(1)
      p(i) = 10 * i + 1
    end do
    call dart_array_save(g, good)
    keep = g
    goodbytes = read_file(good)   ! on every unit: bad_file makes its names and parts from it
    if (me == 0) then
      do k = 1, NBAD
        call bad_file(k, goodbytes, name, content, part)
        call write_file(dir // '/' // name, content)
      end do
      call write_file(dir // '/small.npy', &
                      with_dict("{'descr': '<i2', 'fortran_order': False, 'shape': (1, 2), }"))
    end if
    call dart_barrier(DART_TEAM_ALL)
    do k = 1, NBAD
      call bad_file(k, goodbytes, name, content, part)
      u = keep
      msg = ''
      call dart_array_load(u, dir // '/' // name, stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', part, name)
      call check(u == keep, name // ': u keeps what it held')
      call check_same_everywhere(msg, name)
      msg = ''
      call dart_array_file_info(dir // '/' // name, shape=shp, stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_file_info', part, name // ' (file_info)')
      if (name == 'five.npy') call check(index(msg, 'Fortran dimension ndim - d') == 0, &
        'a message about the number of dimensions has no note on C''s dimension order')
    end do
    msg = ''
    call dart_array_load(u, dir // '/empty.npy', stat=st, errmsg=msg)
    call check(index(msg, 'Fortran dimension ndim - d') > 0, 'a message naming a dimension ' // &
               'carries the note on its order: ' // trim(msg))
    msg = ''
    call dart_array_load(u, dir // '/missing.npy', stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_OTHER, msg, 'dart_array_load', 'cannot open', 'a missing file')
    call check_same_everywhere(msg, 'a missing file')
    msg = ''
    call dart_array_file_info(dir // '/missing.npy', stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_OTHER, msg, 'dart_array_file_info', 'cannot open', &
                    'a missing file (file_info)')
    ! what the file holds against dtype=, components= and the lists
    msg = ''
    call dart_array_load(u, good, dtype=DART_TYPE_FLOAT, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', "'<i4', not '<f4'", &
                    'dtype=DART_TYPE_FLOAT on an int32 file')
    call check_same_everywhere(msg, 'dtype=DART_TYPE_FLOAT')
    msg = ''
    call dart_array_load(u, good, dtype=DART_TYPE_UINT, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', "not '<u4'", &
                    'dtype=DART_TYPE_UINT on an int32 file')
    msg = ''
    call dart_array_load(u, good, dtype=DART_TYPE_INT, components=2, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', "holds dtype '<i4'", &
                    'components=2 on an int32 file')
    msg = ''
    call dart_array_load(u, good, components=1, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', 'components= needs dtype=', &
                    'components= without dtype=')
    call check(u == keep, 'the refusals leave u alone')
    call dart_array_load(u, good, dtype=DART_TYPE_INT, halo=[1], stat=st)
    call check(st == DART_OK .and. u /= keep, 'dtype=DART_TYPE_INT on an int32 file loads')
    if (st == DART_OK) then
      call dart_array_interior(u, p)
      call dart_array_query(u, lo=lo, hi=hi)
      call check(all(p == [(10 * i + 1, i = lo(1), hi(1))]), 'the int32 values, loaded')
      call dart_array_destroy(u)
    end if
    u = keep
    msg = ''
    call dart_array_load(u, good, procs=[1, nunits], stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', '1-dimensional array, not 2', &
                    'procs of rank 2 for a 1D file')
    msg = ''
    call dart_array_load(u, good, halo=none, stat=st, errmsg=msg)   ! not [integer ::]: gfortran
                                                                    ! 12 passes that as absent
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', 'size(halo) = 0', 'size(halo) = 0')
    ! a grid that cannot split the shape: a ghost wider than the 7 points (periodic); one
    ! point over several units
    msg = ''
    call dart_array_load(u, good, halo=[8], periodic=[.true.], stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', 'wider than the block', &
                    'a ghost wider than the blocks')
    call check_same_everywhere(msg, 'a ghost wider than the blocks')
    if (nunits > 1) then
      msg = ''
      call dart_array_load(u, dir // '/small.npy', procs=[1, nunits], stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', 'has 1 points but', &
                      'more units than points')
      call check(index(msg, 'Fortran dimension ndim - d') > 0, 'more units than points: ' // &
                 'the note on the dimension order')
    end if
    ! a bad argument on one unit: it names it, the others name that unit
    msg = ''
    if (me == last) then
      call dart_array_load(u, good, halo=[1, 1, 1], procs=[nunits, 1], stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', &
                      'size(halo) = 3 must be 1 or size(procs) = 2', 'size(halo) on one unit')
    else
      call dart_array_load(u, good, halo=[1], stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_load', 'another unit failed: ' // &
                      'unit ' // itoa(last), 'size(halo) on another unit')
    end if
    call check(u == keep, 'a refused load on one unit leaves u alone everywhere')
    call dart_array_destroy(g)
  end subroutine refused_loads

  !> Saves that cannot happen, on every unit: no folder, a directory as the target,
  !> different paths, /proc, points .npy cannot describe. Nothing is left behind, the
  !> directory and an existing file keep their content.
  subroutine refused_saves()
    type(dart_array) :: a, c3
    character(len=:), allocatable :: good, before, bytes
    character(len=400) :: msg
    integer :: st
    good = dir // '/good.npy'
    call dart_array_load(a, good, stat=st)
    call check_ok(st, 'refused saves: load good.npy')
    if (st /= DART_OK) return
    if (me == 0) then
      st = ftest_mkdir(dir // '/adir' // c_null_char)
      call write_file(dir // '/adir/keep', 'k')
    end if
    call dart_barrier(DART_TEAM_ALL)
    before = listing(dir)
    bytes = read_file(good)
    msg = ''
    call dart_array_save(a, dir // '/nofolder/x.npy', stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_save', 'does not exist', 'no folder')
    call check_same_everywhere(msg, 'no folder')
    msg = ''
    call dart_array_save(a, dir // '/adir', stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_save', 'is a directory', 'a directory')
    call check_same_everywhere(msg, 'a directory')
    msg = ''
    call dart_array_save(a, dir // '/adir/', stat=st, errmsg=msg)
    call check(st /= DART_OK, 'a path that ends in a slash: ' // trim(msg))
    if (nunits > 1) then
      msg = ''
      call dart_array_save(a, dir // merge('/b.npy', '/a.npy', me == 1), stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_save', 'different arguments', &
                      'different paths')
    end if
    msg = ''
    call dart_array_save(a, '/proc/dart-array-ftest.npy', stat=st, errmsg=msg)
    call check(st /= DART_OK, '/proc takes no file: ' // trim(msg))
    call check_same_everywhere(msg, '/proc')
    call dart_array_create(c3, DART_TYPE_INT, [4], components=3, stat=st)
    call check_ok(st, 'an array of 3 components')
    if (st == DART_OK) then
      msg = ''
      call dart_array_save(c3, dir // '/c3.npy', stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_save', 'cannot hold points', &
                      '3 components')
      call dart_array_destroy(c3)
    end if
    call dart_barrier(DART_TEAM_ALL)
    call check(listing(dir) == before, 'no file left behind: ' // listing(dir))
    call check(listing(dir // '/adir') == 'keep' // achar(10), 'the directory keeps its content')
    call check(read_file(good) == bytes, 'the existing file keeps its bytes')
    call dart_array_destroy(a)
  end subroutine refused_saves

  !> With DART_FAULT=file_write:<unit> the write of that unit fails after its data went
  !> out: the save fails on every unit (DART_ERR_OTHER, one message), the old file at path
  !> is untouched and no temporary file is left. Without the hook: a plain overwrite.
  subroutine failed_write()
    type(dart_array) :: a
    character(len=64) :: hook
    character(len=:), allocatable :: sub, path
    character(len=400) :: msg
    logical :: faulty
    integer :: st, unit, ios
    call get_environment_variable('DART_FAULT', hook)
    faulty = hook(1:11) == 'file_write:'
    if (faulty) then        ! the hook names a unit of this job
      read(hook(12:), *, iostat=ios) unit
      faulty = ios == 0 .and. unit >= 0 .and. unit < nunits
    end if
    sub = dir // '/fault'
    path = sub // '/checkpoint.npy'
    if (me == 0) then
      st = ftest_mkdir(sub // c_null_char)
      call write_file(path, 'the old checkpoint')
    end if
    call dart_barrier(DART_TEAM_ALL)
    call dart_array_create(a, DART_TYPE_DOUBLE, [3, 5 * nunits], halo=[1], stat=st)
    call check_ok(st, 'checkpoint: create')
    if (st /= DART_OK) return
    call check(walk(a, FILL) == 0, 'checkpoint: fill')
    msg = ''
    call dart_array_save(a, path, stat=st, errmsg=msg)
    if (faulty) then
      call check_stat(st, DART_ERR_OTHER, msg, 'dart_array_save', 'fault injected by DART_FAULT', &
                      'a failed write')
      call check_same_everywhere(msg, 'a failed write')
      call check(read_file(path) == 'the old checkpoint', 'the old checkpoint is kept')
    else
      call check_ok(st, 'checkpoint: overwrite')
      call check(len(read_file(path)) == 128 + 15 * nunits * 8, 'checkpoint: the new file')
    end if
    call dart_barrier(DART_TEAM_ALL)
    call check(listing(sub) == 'checkpoint.npy' // achar(10), 'no temporary file: ' // listing(sub))
    call dart_array_destroy(a)
  end subroutine failed_write

end program ftest_array_io
