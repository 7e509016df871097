! SPDX-License-Identifier: BSD-3-Clause
! ftest_array: distributed arrays with ghost layers in Fortran (dart_array_* of module
! `dart`, issue 28). Everything per dimension is in Fortran order (the reverse of C's) and
! global indices are 0-based:
!  - the ghost-filling matrix: ranks 1-4, asymmetric widths 0-3 (given as halo= or as
!    halo_lo=/halo_hi=), periodic combinations (all of ranks 1 and 2), star and box, both exchanges, blocking
!    and begin/end, every element type (complex: components=2), default and given grids
!    (1 x N, N x 1), user-given blocks down to block = width, a one-unit team: every
!    interior point holds a function of its global index, every ghost the sentinel,
!    then after the update every ghost point holds the neighbour's value, the periodic
!    wrap, or still the sentinel where the library must not write; the bounds of
!    dart_array_local/_interior are the global indices;
!  - two arrays with updates in flight at once;
!  - per type: scatter, gather, region get/put across owners through non-contiguous
!    sections and a scalar; a 3D region across every owner;
!  - copy; the queries against what C reports, reversed; dart_array_dims_create;
!  - bad input with stat and errmsg, on one unit and on all: no hang, nothing held.
! The values are those of tests/cpp/test_array.cc for the same memory: 1 + (7 lin + 13
! round) mod M, lin the C-order (= Fortran-order) linear index of the point times the
! components plus the component.
!
! dart-test: TIMEOUT 300
#define SENTINEL (-7.0_real64)

module ftest_array_cases
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use dart
  use ftest
  implicit none

  !> One case of the matrix (Fortran order).
  type :: acase
    character(len=48) :: name = ''
    integer :: nd = 1
    integer :: shape(4) = 1, procs(4) = 0, hlo(4) = 0, hhi(4) = 0
    logical :: periodic(4) = .false.
    integer :: stencil = DART_STENCIL_STAR, exchange = DART_ARRAY_EXCHANGE_AUTO
    logical :: split = .false.      ! begin/end instead of the blocking update
    logical :: sym = .false.        ! halo= (hlo == hhi) instead of halo_lo=/halo_hi=
    logical :: give_procs = .false.
    integer, allocatable :: blocks(:)
    integer(DART_TEAM_KIND) :: team = DART_TEAM_ALL
    integer :: tkind = 6            ! 1..8: int8 int16 int32 int64 real32 real64 complex32/64
  end type acase

  !> What the query says about my block (Fortran order, global 0-based, inclusive).
  type :: alayout
    integer :: nd = 0, npts = 0, modv = 30011, comps = 1
    integer :: shape(4) = 1, lo(4) = 0, hi(4) = 0, lb(4) = 0, ub(4) = 0
    integer :: procs(4) = 1, coords(4) = 0
    logical :: periodic(4) = .false.
    logical :: box = .false.
  end type alayout

contains

  integer(c_intptr_t) function addr(p)
    type(c_ptr), intent(in) :: p
    addr = transfer(p, 0_c_intptr_t)
  end function addr

  !> The balanced grid of n units over nd dimensions in C order (non-increasing), the
  !> rule of MPI_Dims_create: the test's own copy, to size the shapes.
  function c_grid(n, nd) result(dims)
    integer, intent(in) :: n, nd
    integer :: dims(nd), m, p, k, t
    integer :: primes(32), np
    np = 0
    m = n
    p = 2
    do while (m > 1)
      if (mod(m, p) == 0) then
        np = np + 1
        primes(np) = p
        m = m / p
      else
        p = p + 1
      end if
    end do
    dims = 1
    do k = np, 1, -1
      t = minloc(dims, 1)
      dims(t) = dims(t) * primes(k)
    end do
    do k = 1, nd - 1           ! non-increasing
      do t = 1, nd - k
        if (dims(t) < dims(t + 1)) dims(t:t + 1) = [dims(t + 1), dims(t)]
      end do
    end do
  end function c_grid

  !> Create the array of case c (every argument through the generic, absent ones as
  !> unallocated actuals); false (and a failed check) if it failed.
  logical function create_case(c, dtype, comps, u) result(ok)
    type(acase), intent(in) :: c
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: comps
    type(dart_array), intent(inout) :: u
    integer, allocatable :: halo(:), hlo(:), hhi(:), procs(:), blocks(:)
    integer :: st, nd
    character(len=300) :: msg
    nd = c%nd
    if (c%sym) then
      halo = c%hlo(1:nd)
    else
      hlo = c%hlo(1:nd)
      hhi = c%hhi(1:nd)
    end if
    if (c%give_procs) procs = c%procs(1:nd)
    if (allocated(c%blocks)) blocks = c%blocks
    msg = ''
    call dart_array_create(u, dtype, c%shape(1:nd), halo=halo, halo_lo=hlo, halo_hi=hhi, &
                           periodic=c%periodic(1:nd), stencil=c%stencil, procs=procs, &
                           team=c%team, exchange=c%exchange, blocks=blocks, &
                           components=comps, stat=st, errmsg=msg)
    ok = st == DART_OK
    call check(ok, trim(c%name) // ': create: ' // trim(msg))
  end function create_case

  !> My block as the query gives it.
  type(alayout) function layout_of(u) result(l)
    type(dart_array), intent(in) :: u
    integer :: hlo(4), hhi(4), stencil, comps
    integer(DART_DATATYPE_KIND) :: dtype
    call dart_array_query(u, ndim=l%nd, shape=l%shape, lo=l%lo, hi=l%hi, halo_lo=hlo, &
                          halo_hi=hhi, periodic=l%periodic, stencil=stencil, dtype=dtype, &
                          components=comps, procs=l%procs, coords=l%coords)
    l%lb = l%lo - hlo
    l%ub = l%hi + hhi
    l%npts = product(l%ub(1:l%nd) - l%lb(1:l%nd) + 1)
    l%box = stencil == DART_STENCIL_BOX
    l%comps = comps
    if (dtype == DART_TYPE_BYTE) l%modv = 101
  end function layout_of

  !> The bounds of the pointers against the query, and the query's block against the
  !> blocks computed here from its grid coordinates (default or given blocks).
  subroutine check_bounds(c, l, lbp, ubp, lbi, ubi)
    type(acase), intent(in) :: c
    type(alayout), intent(in) :: l
    integer, intent(in) :: lbp(:), ubp(:), lbi(:), ubi(:)
    integer :: nd, k, q, r, off, want_lo, want_hi
    logical :: ok
    nd = l%nd
    call check(all(lbp == l%lb(1:nd)) .and. all(ubp == l%ub(1:nd)), trim(c%name) // &
               ': dart_array_local bounds = global indices with the ghosts')
    call check(all(lbi == l%lo(1:nd)) .and. all(ubi == l%hi(1:nd)), trim(c%name) // &
               ': dart_array_interior bounds = my block''s global indices')
    ok = .true.
    off = 0
    do k = 1, nd
      if (allocated(c%blocks)) then
        want_lo = sum(c%blocks(off + 1:off + l%coords(k)))
        want_hi = want_lo + c%blocks(off + l%coords(k) + 1) - 1
        off = off + l%procs(k)
      else
        q = l%shape(k) / l%procs(k)
        r = mod(l%shape(k), l%procs(k))
        want_lo = l%coords(k) * q + min(l%coords(k), r)
        want_hi = want_lo + q - 1
        if (l%coords(k) < r) want_hi = want_hi + 1
      end if
      ok = ok .and. l%lo(k) == want_lo .and. l%hi(k) == want_hi
    end do
    call check(ok, trim(c%name) // ': my block follows from my grid coordinates')
  end subroutine check_bounds

  !> Global index g (Fortran order) of local point m (1-based, memory order: the first
  !> index fastest) of my block with ghosts; inside: whether it is in my interior.
  subroutine point_of(l, m, g, inside)
    type(alayout), intent(in) :: l
    integer, intent(in) :: m
    integer, intent(inout) :: g(4)
    logical, intent(inout) :: inside
    integer :: k, rest, e
    rest = m - 1
    inside = .true.
    g = 0
    do k = 1, l%nd
      e = l%ub(k) - l%lb(k) + 1
      g(k) = l%lb(k) + mod(rest, e)
      rest = rest / e
      inside = inside .and. g(k) >= l%lo(k) .and. g(k) <= l%hi(k)
    end do
  end subroutine point_of

  !> What the library must leave at global index g of my block: filled (from the point
  !> w, g wrapped) or the sentinel (a global boundary that is not periodic, or an edge or
  !> corner of a star stencil).
  subroutine expected(l, g, filled, w)
    type(alayout), intent(in) :: l
    integer, intent(in) :: g(4)
    logical, intent(inout) :: filled
    integer, intent(inout) :: w(4)
    integer :: k, moved
    moved = 0
    w = g
    filled = .true.
    do k = 1, l%nd
      if (g(k) >= l%lo(k) .and. g(k) <= l%hi(k)) cycle
      moved = moved + 1
      if (g(k) < 0 .or. g(k) >= l%shape(k)) then
        if (.not. l%periodic(k)) filled = .false.
        w(k) = modulo(g(k), l%shape(k))
      end if
    end do
    if (moved > 1 .and. .not. l%box) filled = .false.
  end subroutine expected

  !> The components of the point at global index g in round `round`.
  subroutine value_of(l, g, round, re, im)
    type(alayout), intent(in) :: l
    integer, intent(in) :: g(4), round
    real(real64), intent(inout) :: re, im
    call value_of2(l%shape(1:l%nd), g(1:l%nd), round, l%modv, l%comps, re, im)
  end subroutine value_of

  !> 1 + (7 lin + 13 round) mod modv for component 0 (re) and 1 (im), lin = the linear
  !> index of g in an array of the given shape (first index fastest = C's last) times
  !> comps plus the component.
  subroutine value_of2(shape, g, round, modv, comps, re, im)
    integer, intent(in) :: shape(:), g(:), round, modv, comps
    real(real64), intent(inout) :: re, im
    integer(int64) :: lin
    integer :: k
    lin = 0
    do k = size(shape), 1, -1
      lin = lin * shape(k) + g(k)
    end do
    re = real(1 + mod(lin * comps * 7 + round * 13, int(modv, int64)), real64)
    im = real(1 + mod((lin * comps + 1) * 7 + round * 13, int(modv, int64)), real64)
  end subroutine value_of2

  ! ---- the tests of each element type (array_type.inc) --------------------------------
  ! tkind 1..8: the eight buffer types; 9, 10: integer(int32) on DART_TYPE_UINT and
  ! integer(int64) on DART_TYPE_LONG (an array takes the Fortran kind of its C type)

#define GHOST ghost_int8
#define OPENV open_int8
#define FILLV fill_int8
#define VERIFYV verify_int8
#define ROUNDTRIP roundtrip_int8
#define TYPE integer(int8)
#define LABEL 'integer(int8)'
#define DTYPE DART_TYPE_BYTE
#define COMPS 1
#define MODV 101
#define CONV(re, im) int(re, int8)
#include "array_type.inc"

#define GHOST ghost_int16
#define OPENV open_int16
#define FILLV fill_int16
#define VERIFYV verify_int16
#define ROUNDTRIP roundtrip_int16
#define TYPE integer(int16)
#define LABEL 'integer(int16)'
#define DTYPE DART_TYPE_SHORT
#define COMPS 1
#define MODV 30011
#define CONV(re, im) int(re, int16)
#include "array_type.inc"

#define GHOST ghost_int32
#define OPENV open_int32
#define FILLV fill_int32
#define VERIFYV verify_int32
#define ROUNDTRIP roundtrip_int32
#define TYPE integer(int32)
#define LABEL 'integer(int32)'
#define DTYPE DART_TYPE_INT
#define COMPS 1
#define MODV 30011
#define CONV(re, im) int(re, int32)
#include "array_type.inc"

#define GHOST ghost_int64
#define OPENV open_int64
#define FILLV fill_int64
#define VERIFYV verify_int64
#define ROUNDTRIP roundtrip_int64
#define TYPE integer(int64)
#define LABEL 'integer(int64)'
#define DTYPE DART_TYPE_LONGLONG
#define COMPS 1
#define MODV 30011
#define CONV(re, im) int(re, int64)
#include "array_type.inc"

#define GHOST ghost_real32
#define OPENV open_real32
#define FILLV fill_real32
#define VERIFYV verify_real32
#define ROUNDTRIP roundtrip_real32
#define TYPE real(real32)
#define LABEL 'real(real32)'
#define DTYPE DART_TYPE_FLOAT
#define COMPS 1
#define MODV 30011
#define CONV(re, im) real(re, real32)
#include "array_type.inc"

#define GHOST ghost_real64
#define OPENV open_real64
#define FILLV fill_real64
#define VERIFYV verify_real64
#define ROUNDTRIP roundtrip_real64
#define TYPE real(real64)
#define LABEL 'real(real64)'
#define DTYPE DART_TYPE_DOUBLE
#define COMPS 1
#define MODV 30011
#define CONV(re, im) real(re, real64)
#include "array_type.inc"

#define GHOST ghost_complex32
#define OPENV open_complex32
#define FILLV fill_complex32
#define VERIFYV verify_complex32
#define ROUNDTRIP roundtrip_complex32
#define TYPE complex(real32)
#define LABEL 'complex(real32)'
#define DTYPE DART_TYPE_FLOAT
#define COMPS 2
#define MODV 30011
#define CONV(re, im) cmplx(re, im, real32)
#include "array_type.inc"

#define GHOST ghost_complex64
#define OPENV open_complex64
#define FILLV fill_complex64
#define VERIFYV verify_complex64
#define ROUNDTRIP roundtrip_complex64
#define TYPE complex(real64)
#define LABEL 'complex(real64)'
#define DTYPE DART_TYPE_DOUBLE
#define COMPS 2
#define MODV 30011
#define CONV(re, im) cmplx(re, im, real64)
#include "array_type.inc"

#define GHOST ghost_uint32
#define OPENV open_uint32
#define FILLV fill_uint32
#define VERIFYV verify_uint32
#define ROUNDTRIP roundtrip_uint32
#define TYPE integer(int32)
#define LABEL 'integer(int32) DART_TYPE_UINT'
#define DTYPE DART_TYPE_UINT
#define COMPS 1
#define MODV 30011
#define CONV(re, im) int(re, int32)
#include "array_type.inc"

#define GHOST ghost_long64
#define OPENV open_long64
#define FILLV fill_long64
#define VERIFYV verify_long64
#define ROUNDTRIP roundtrip_long64
#define TYPE integer(int64)
#define LABEL 'integer(int64) DART_TYPE_LONG'
#define DTYPE DART_TYPE_LONG
#define COMPS 1
#define MODV 30011
#define CONV(re, im) int(re, int64)
#include "array_type.inc"

  !> Case c with its element type.
  subroutine run_case(c)
    type(acase), intent(in) :: c
    select case (c%tkind)
    case (1)
      call ghost_int8(c)
    case (2)
      call ghost_int16(c)
    case (3)
      call ghost_int32(c)
    case (4)
      call ghost_int64(c)
    case (5)
      call ghost_real32(c)
    case (6)
      call ghost_real64(c)
    case (7)
      call ghost_complex32(c)
    case (8)
      call ghost_complex64(c)
    case (9)
      call ghost_uint32(c)
    case default
      call ghost_long64(c)
    end select
  end subroutine run_case

end module ftest_array_cases

program ftest_array
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64
  use dart
  use dart_c_binding, only: c_dart_array_info, c_dart_array_get_info, dartf_array_ptr
  use ftest
  use ftest_array_cases
  implicit none
  integer(c_size_t) :: entries0, held0, entries1, held1

  call ftest_start('ftest_array')
  call dart_type_layout_cache_stats(entries0, held0)

  call ftest_section('ghost matrix')
  call ghost_matrix()
  call ftest_section('given grids and blocks')
  call given_grids_and_blocks()
  call ftest_section('one-unit team')
  call one_unit_team()
  call ftest_section('two in flight')
  call two_in_flight()
  call ftest_section('regions, gather, scatter (every type)')
  call roundtrip_int8()
  call roundtrip_int16()
  call roundtrip_int32()
  call roundtrip_int64()
  call roundtrip_real32()
  call roundtrip_real64()
  call roundtrip_complex32()
  call roundtrip_complex64()
  call ftest_section('3D region across every owner')
  call region_3d()
  call ftest_section('copy')
  call copy_array()
  call ftest_section('query')
  call query_against_c()
  call ftest_section('bad input')
  call bad_input()

  call ftest_section('nothing held')
  call dart_type_layout_cache_stats(entries1, held1)
  call check(held1 == held0, 'no layout type is held after the tests')
  call ftest_finish()

contains

  !> Ranks 1-4; every periodic combination in ranks 1 and 2 (with both stencils), four
  !> asymmetric ones of ranks 3 and 4 (stencils alternating); asymmetric widths 0-3 (some
  !> as halo=); the exchange, blocking or begin/end and the element type rotating. An
  !> array's creation costs most of a case, about 0.2 s with more units than cores under
  !> MPICH: oversubscribed, every third case runs (every rank, stencil, exchange and both
  !> kinds of update still do; the element types continue in the given grids), as in the
  !> core's test_array, which runs every combination of every rank.
  subroutine ghost_matrix()
    type(acase) :: c
    integer :: nd, mask, stencil, k, kc, d, i, gridf(4), ncases, masks(16), stencils(16), ran
    logical :: reduced
    character(len=16) :: num
    reduced = ftest_oversubscribed()
    ran = 0
    k = 0
    do nd = 1, 4
      gridf(1:nd) = c_grid(nunits, nd)
      gridf(1:nd) = gridf(nd:1:-1)          ! Fortran's default grid: C's reversed
      select case (nd)
      case (1, 2)
        ncases = 2 * 2**nd
        do i = 1, ncases
          masks(i) = mod(i - 1, 2**nd)
          stencils(i) = (i - 1) / 2**nd
        end do
      case (3)
        ncases = 4
        masks(1:4) = [1, 6, 4, 3]
        stencils(1:4) = [1, 0, 1, 0]
      case default
        ncases = 4
        masks(1:4) = [15, 5, 10, 2]
        stencils(1:4) = [1, 0, 1, 0]
      end select
      do i = 1, ncases
        kc = k                          ! the case's number, also in reduced runs
        k = k + 1
        if (reduced .and. mod(kc, 3) /= 0) cycle
        mask = masks(i)
        stencil = stencils(i)
        c = acase()
        write(num, '(i0)') kc
        c%name = 'matrix ' // trim(num)
        c%nd = nd
        do d = 1, nd
          c%shape(d) = 3 * gridf(d) + mod(d + kc, 3)     ! blocks of 3 or 4 points
          c%hlo(d) = mod(d + mask + stencil, 4)
          c%hhi(d) = mod(2 * d + mask + 1 + kc, 4)
          c%periodic(d) = btest(mask, d - 1)
        end do
        c%sym = mod(kc, 4) == 1
        if (c%sym) c%hhi = c%hlo
        c%stencil = merge(DART_STENCIL_BOX, DART_STENCIL_STAR, stencil == 1)
        c%exchange = merge(DART_ARRAY_EXCHANGE_GET, DART_ARRAY_EXCHANGE_NOTIFY, &
                           mod(mask + stencil + kc / 3, 2) == 0)
        if (mod(kc, 7) == 3) c%exchange = DART_ARRAY_EXCHANGE_AUTO
        c%split = mod(mask / 2 + stencil + kc, 2) == 1
        c%tkind = mod(ran, 10) + 1
        ran = ran + 1
        call run_case(c)
      end do
    end do
  end subroutine ghost_matrix

  !> Given grids 1 x N and N x 1 (2D), 1 x N x 1 (3D), periodic where one process holds
  !> the dimension (the unit is its own neighbour); given blocks, uneven, down to the
  !> width (2), in both orientations of the grid.
  subroutine given_grids_and_blocks()
    type(acase) :: c
    integer :: along, d, u, k, total
    integer, allocatable :: b(:)
    character(len=16) :: num
    k = 0
    do along = 1, 3
      c = acase()
      write(num, '(i0)') along
      c%name = 'grid along ' // trim(num)
      c%nd = merge(3, 2, along == 3)
      c%give_procs = .true.
      do d = 1, c%nd
        c%procs(d) = merge(nunits, 1, d == min(along, 2))   ! along 3: [1, n, 1]
        c%shape(d) = merge(2 * nunits + 1, 4, c%procs(d) == nunits)
        c%hlo(d) = 1 + mod(d + along, 2)
        c%hhi(d) = 2 - mod(d + along, 2)
        c%periodic(d) = .true.
      end do
      c%stencil = DART_STENCIL_BOX
      c%exchange = merge(DART_ARRAY_EXCHANGE_GET, DART_ARRAY_EXCHANGE_NOTIFY, along /= 2)
      c%split = along == 2
      c%tkind = 7 + along              ! complex64, and the kind-sharing C types
      call run_case(c)
    end do
    ! blocks: of dimension 1 first (Fortran order), then dimension 2
    allocate(b(nunits))
    do u = 1, nunits
      b(u) = merge(2, 5, mod(u, 2) == 1)
    end do
    total = sum(b)
    do k = 1, 2
      c = acase()
      c%nd = 2
      c%give_procs = .true.
      if (k == 1) then
        c%name = 'given blocks [n, 1]'
        c%procs(1:2) = [nunits, 1]
        c%shape(1:2) = [total, 6]
        c%blocks = [b, 6]
        c%hlo(1:2) = [2, 1]
        c%hhi(1:2) = [2, 0]
      else
        c%name = 'given blocks [1, n]'
        c%procs(1:2) = [1, nunits]
        c%shape(1:2) = [6, total]
        c%blocks = [6, b]
        c%hlo(1:2) = [0, 2]
        c%hhi(1:2) = [1, 2]
      end if
      c%periodic(1:2) = .true.
      c%stencil = DART_STENCIL_BOX
      c%exchange = merge(DART_ARRAY_EXCHANGE_GET, DART_ARRAY_EXCHANGE_NOTIFY, k == 1)
      c%split = k == 2
      c%tkind = 3
      call run_case(c)
    end do
  end subroutine given_grids_and_blocks

  !> The same on a team of one unit (each unit its own array): periodic everywhere, so the
  !> unit fills all its ghosts from itself.
  subroutine one_unit_team()
    type(acase) :: c
    integer(DART_TEAM_KIND) :: solo
    integer :: st
    solo = ftest_solo_team()
    c = acase()
    c%name = 'one-unit team'
    c%nd = 2
    c%team = solo
    c%shape(1:2) = [4, 5]
    c%hlo(1:2) = [1, 2]
    c%hhi(1:2) = [3, 0]
    c%periodic(1:2) = .true.
    c%stencil = DART_STENCIL_BOX
    c%exchange = DART_ARRAY_EXCHANGE_NOTIFY
    c%tkind = 7
    call run_case(c)
    call dart_team_destroy(solo, stat=st)
    call check_ok(st, 'dart_team_destroy (one-unit team)')
  end subroutine one_unit_team

  !> Two arrays with updates in flight at once (begin a, begin b, end b, end a), of both
  !> exchanges, three rounds.
  subroutine two_in_flight()
    type(acase) :: ca, cb
    type(dart_array) :: a, b
    type(alayout) :: la, lb
    real(real64), pointer :: fa(:)
    integer(int64), pointer :: fb(:)
    integer :: round, st, d, g2(2), g3(3)
    logical :: oka, okb
    g2 = c_grid(nunits, 2)
    g3 = c_grid(nunits, 3)
    ca%name = 'in flight a'
    ca%nd = 2
    ca%shape(1:2) = 4 * g2(2:1:-1) + 1
    ca%hlo(1:2) = 1
    ca%hhi(1:2) = 1
    ca%periodic(1:2) = .true.
    ca%exchange = DART_ARRAY_EXCHANGE_GET
    cb%name = 'in flight b'
    cb%nd = 3
    do d = 1, 3
      cb%shape(d) = 3 * g3(4 - d)
    end do
    cb%hlo(1:3) = 2
    cb%hhi(1:3) = 1
    cb%exchange = DART_ARRAY_EXCHANGE_NOTIFY
    cb%stencil = DART_STENCIL_BOX
    oka = open_real64(ca, a, la, fa)
    okb = open_int64(cb, b, lb, fb)
    if (oka .and. okb) then
      do round = 0, 2
        call fill_real64(la, fa, round)
        call fill_int64(lb, fb, round)
        call dart_array_update_halo_begin(a, stat=st)
        call check_ok(st, 'begin a')
        call dart_array_update_halo_begin(b, stat=st)
        call check_ok(st, 'begin b')
        call dart_array_update_halo_end(b, stat=st)
        call check_ok(st, 'end b')
        call dart_array_update_halo_end(a, stat=st)
        call check_ok(st, 'end a')
        call verify_real64(ca, la, fa, round)
        call verify_int64(cb, lb, fb, round)
      end do
    end if
    if (okb) call dart_array_destroy(b)
    if (oka) call dart_array_destroy(a)
  end subroutine two_in_flight

  !> A 3D region across every owner (owners in every dimension of the grid) into a
  !> strided buffer and back from the last unit, checked through gather; a scalar point.
  subroutine region_3d()
    type(dart_array) :: u
    real(real64), allocatable :: glob(:, :, :), back(:, :, :), buf(:, :, :)
    real(real64) :: x
    integer :: g(3), n(3), lo(3), e(3), st, i, j, k, bad
    g = c_grid(nunits, 3)
    n = 2 * g(3:1:-1) + 3
    call dart_array_create(u, DART_TYPE_DOUBLE, n, halo_lo=[1, 1, 1], halo_hi=[1, 0, 1], &
                           stat=st)
    call check_ok(st, '3D: create')
    if (st /= DART_OK) return
    allocate(glob(0:n(1) - 1, 0:n(2) - 1, 0:n(3) - 1))
    allocate(back, mold=glob)
    do k = 0, n(3) - 1
      do j = 0, n(2) - 1
        do i = 0, n(1) - 1
          glob(i, j, k) = 0.5_real64 + i + n(1) * (j + n(2) * k)
        end do
      end do
    end do
    call dart_array_scatter(u, glob, 0, stat=st)
    call check_ok(st, '3D: scatter')
    lo = [1, 0, 1]
    e = n - lo - [0, 1, 0]
    allocate(buf(2 * e(1), e(2), e(3)))
    buf = -1
    call dart_array_get(u, lo, buf(1:2 * e(1):2, :, :), stat=st)
    call check_ok(st, '3D: get into every second point of dimension 1')
    bad = count(buf(1:2 * e(1):2, :, :) /= glob(lo(1):lo(1) + e(1) - 1, lo(2):lo(2) + e(2) - 1, &
                                                  lo(3):lo(3) + e(3) - 1))
    bad = bad + count(buf(2:2 * e(1):2, :, :) /= -1)
    call check(bad == 0, '3D: the region is in the section, the gaps untouched')
    call dart_array_get(u, [n(1) - 1, 0, n(3) - 1], x, stat=st)
    call check(st == DART_OK .and. x == glob(n(1) - 1, 0, n(3) - 1), '3D: one point')
    call dart_barrier(DART_TEAM_ALL)
    if (me == nunits - 1) then
      buf = buf + 1000
      call dart_array_put(u, lo, buf(1:2 * e(1):2, :, :), stat=st)
      call check_ok(st, '3D: put from the section')
    end if
    call dart_array_gather(u, back, 0, stat=st)
    call check_ok(st, '3D: gather')
    if (me == 0) then
      glob(lo(1):lo(1) + e(1) - 1, lo(2):lo(2) + e(2) - 1, lo(3):lo(3) + e(3) - 1) = &
        glob(lo(1):lo(1) + e(1) - 1, lo(2):lo(2) + e(2) - 1, lo(3):lo(3) + e(3) - 1) + 1000
      call check(all(back == glob), '3D: the put changed exactly its region')
    end if
    call dart_array_destroy(u)
  end subroutine region_3d

  !> copy: a new array with the same distribution and halos, every block a copy (ghosts
  !> included), in other memory.
  subroutine copy_array()
    type(dart_array) :: u, v
    real(real64), pointer :: pu(:, :), pv(:, :)
    integer :: st, lou(2), hiu(2), lov(2), hiv(2), hl(2), hh(2)
    logical :: per(2)
    call dart_array_create(u, DART_TYPE_DOUBLE, [7, 2 * nunits + 1], halo_lo=[1, 2], &
                           halo_hi=[0, 1], periodic=[.true., .false.], &
                           stencil=DART_STENCIL_BOX, stat=st)
    call check_ok(st, 'copy: create')
    if (st /= DART_OK) return
    call dart_array_local(u, pu)
    pu = me + 0.25_real64
    pu(lbound(pu, 1), lbound(pu, 2)) = -42     ! a ghost corner
    call dart_array_copy(u, v, stat=st)
    call check_ok(st, 'copy')
    if (st == DART_OK) then
      call dart_array_local(v, pv)
      call check(.not. associated(pv, pu), 'copy: other memory')
      call check(all(lbound(pv) == lbound(pu)) .and. all(ubound(pv) == ubound(pu)), &
                 'copy: the same bounds')
      if (all(shape(pv) == shape(pu))) call check(all(pv == pu), 'copy: the same values, ghosts included')
      call dart_array_query(u, lo=lou, hi=hiu)
      call dart_array_query(v, lo=lov, hi=hiv, halo_lo=hl, halo_hi=hh, periodic=per)
      call check(all(lou == lov) .and. all(hiu == hiv) .and. all(hl == [1, 2]) .and. &
                 all(hh == [0, 1]) .and. all(per .eqv. [.true., .false.]), &
                 'copy: the same distribution, halos and boundaries')
      call dart_array_destroy(v, stat=st)
      call check(st == DART_OK .and. v == DART_ARRAY_NULL .and. u /= DART_ARRAY_NULL, &
                 'copy: destroy the copy')
    end if
    call dart_array_destroy(u)
  end subroutine copy_array

  !> The queries in Fortran order against what C reports (dart_array_get_info), reversed;
  !> the default grid is C's reversed (non-decreasing here); block and owner agree.
  subroutine query_against_c()
    type(dart_array) :: u
    type(c_dart_array_info) :: info
    integer :: nd, procs(4), coords(4), lo(4), hi(4), shp(4), blo(4), bhi(4), owner, st, k
    integer :: unit, myid, nunits_q, exchange, ndim, grid(3)
    integer :: shapes(3, 2)
    logical :: ok
    shapes(:, 1) = [5, 7, 9]
    shapes(:, 2) = [2 * nunits + 2, 3, 4]
    do k = 1, 2
      nd = 3
      if (k == 1) then
        call dart_array_create(u, DART_TYPE_INT, shapes(:, k), halo=[1], stat=st)
      else
        call dart_array_create(u, DART_TYPE_INT, shapes(:, k), halo=[1], procs=[nunits, 1, 1], &
                               exchange=DART_ARRAY_EXCHANGE_NOTIFY, stat=st)
      end if
      call check_ok(st, 'query: create')
      if (st /= DART_OK) cycle
      call dart_array_query(u, procs=procs, coords=coords, lo=lo, hi=hi, shape=shp, &
                            ndim=ndim, myid=myid, nunits=nunits_q, exchange=exchange, stat=st)
      call check_ok(st, 'query')
      call check(c_dart_array_get_info(dartf_array_ptr(u), info) == DART_OK, 'query: C info')
      ok = ndim == nd .and. myid == me .and. nunits_q == nunits
      ok = ok .and. all(procs(1:nd) == info%procs(nd:1:-1))
      ok = ok .and. all(coords(1:nd) == info%coords(nd:1:-1))
      ok = ok .and. all(lo(1:nd) == info%lo(nd:1:-1))
      ok = ok .and. all(hi(1:nd) == info%hi(nd:1:-1) - 1)
      ok = ok .and. all(shp(1:nd) == info%shape(nd:1:-1)) .and. all(shp(1:nd) == shapes(:, k))
      call check(ok, 'query: Fortran order = C''s reversed, hi inclusive')
      call check(product(procs(1:nd)) == nunits .and. all(coords(1:nd) >= 0) .and. &
                 all(coords(1:nd) < procs(1:nd)), 'query: a grid of the team''s units')
      if (k == 1) then
        call check(procs(1) <= procs(2) .and. procs(2) <= procs(3), &
                   'query: the default grid is non-decreasing in Fortran order')
        grid = 0
        call dart_array_dims_create(nunits, grid, stat=st)
        call check(st == DART_OK .and. all(grid == procs(1:nd)), &
                   'dart_array_dims_create gives the grid of the array')
        grid = [0, 1, 0]
        call dart_array_dims_create(nunits, grid, stat=st)
        call check(st == DART_OK .and. grid(2) == 1 .and. grid(1) * grid(3) == nunits .and. &
                   grid(1) <= grid(3), 'dart_array_dims_create keeps a given entry')
      else
        call check(all(procs(1:nd) == [nunits, 1, 1]) .and. &
                   exchange == DART_ARRAY_EXCHANGE_NOTIFY, 'query: the given grid and exchange')
      end if
      ! unit at grid coordinates: C's row-major rule, coords reversed
      call check(me == (coords(3) * procs(2) + coords(2)) * procs(1) + coords(1), &
                 'query: my id is C''s row-major position of my reversed coordinates')
      call dart_array_owner(u, lo(1:nd), owner, stat=st)
      call check(st == DART_OK .and. owner == me, 'owner of my first point is me')
      call dart_array_owner(u, hi(1:nd), owner, stat=st)
      call check(st == DART_OK .and. owner == me, 'owner of my last point is me')
      call dart_array_block(u, me, blo, bhi, stat=st)
      call check(st == DART_OK .and. all(blo(1:nd) == lo(1:nd)) .and. &
                 all(bhi(1:nd) == hi(1:nd)), 'dart_array_block of me = my query')
      do unit = 0, nunits - 1
        call dart_array_block(u, unit, blo, bhi)
        call dart_array_owner(u, bhi(1:nd), owner)
        call check(owner == unit, 'owner of the last point of every block')
      end do
      call dart_array_destroy(u)
    end do
  end subroutine query_against_c

  !> Bad input: stat and errmsg on the unit at fault, "another unit failed" on the
  !> others; local errors; outputs untouched; no hang.
  subroutine bad_input()
    type(dart_array) :: u, v
    real(real64), pointer :: p2(:, :), p3(:, :, :)
    integer(int32), pointer :: q2(:, :)
    real(real64), allocatable, target :: buf(:, :), whole(:, :)
    integer(int32) :: ix
    integer :: st, last, lo(2), small(1)
    character(len=400) :: msg
    last = nunits - 1

    ! -- creation, the same bad argument on every unit ------------------------------------
    call all_fail_create('no dimensions', [integer ::], 'ndim 0')
    call all_fail_create('five dimensions', [2, 2, 2, 2, 2], 'ndim 5')
    msg = ''
    call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo=[1, 1], halo_lo=[1, 1], &
                           stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'not both', 'halo and halo_lo')
    call check(u == DART_ARRAY_NULL, 'halo and halo_lo: u untouched')
    msg = ''
    call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4 * nunits], procs=[1, nunits], &
                           blocks=[4], stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'size(blocks)', &
                    'blocks of the wrong size')
    msg = ''
    call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4 * nunits], blocks=[(4, st = 1, nunits + 1)], &
                           stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'need the whole grid', &
                    'blocks without procs')
    msg = ''   ! blocks of 4 points, a ghost of 5 (periodic: also with one unit)
    call dart_array_create(u, DART_TYPE_DOUBLE, [6, 4 * nunits], procs=[1, nunits], &
                           halo_lo=[0, 5], halo_hi=[0, 0], periodic=[.false., .true.], &
                           stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'wider than the block', &
                    'a width wider than the block')
    call check(index(msg, 'Fortran dimension ndim - d') > 0, 'a core message naming ' // &
               'dimensions carries the note on their order: ' // trim(msg))
    if (nunits > 1) then
      msg = ''
      call dart_array_create(u, DART_TYPE_DOUBLE, [5, nunits - 1], procs=[1, nunits], &
                             stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'points but', &
                      'more processes than points')
    end if
    msg = ''
    call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], stencil=7, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'stencil', 'a bad stencil')
    msg = ''
    call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], exchange=9, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'exchange', 'a bad exchange')
    msg = ''
    call dart_array_create(u, DART_TYPE_UNDEFINED, [4, 4], stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'not a DART basic type', &
                    'no basic type')

    ! -- a bad argument on one unit: that unit names it, the others name that unit ---------
    msg = ''
    if (me == last) then
      call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo=[1, 1, 1], stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'size(halo) = 3', &
                      'size(halo) on one unit')
    else
      call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo=[1, 1], stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'another unit failed: ' // &
                      'unit ' // itoa(last), 'size(halo) on another unit')
    end if
    call check(u == DART_ARRAY_NULL, 'a failed create leaves u alone')
    msg = ''
    if (me == last) then
      call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo_lo=[1, -2], halo_hi=[1], &
                             stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'must be >= 0', &
                      'a negative width on one unit')
    else
      call dart_array_create(u, DART_TYPE_DOUBLE, [4, 4], halo=[1], stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'another unit failed: ' // &
                      'unit ' // itoa(last), 'a negative width on another unit')
    end if
    if (nunits > 1) then   ! different arguments: every unit names unit 0 and the first other
      msg = ''
      call dart_array_create(u, merge(DART_TYPE_FLOAT, DART_TYPE_DOUBLE, me == 1), [4, 4], &
                             stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', 'different arguments', &
                      'different dtypes')
      call check(index(msg, 'DART_TYPE_FLOAT') > 0, 'different dtypes: named')
    end if

    ! -- calls on an array -----------------------------------------------------------------
    call dart_array_create(u, DART_TYPE_DOUBLE, [5, 4 * nunits], halo=[1], procs=[1, nunits], &
                           periodic=[.true.], stat=st)
    call check_ok(st, 'bad input: a good array')
    if (st /= DART_OK) return
    msg = ''
    nullify(q2)
    call dart_array_local(u, q2, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_local', &
                    'p is integer(int32) but the array holds points of DART_TYPE_DOUBLE', &
                    'a pointer of the wrong type')
    call check(.not. associated(q2), 'the wrong pointer stays unassociated')
    msg = ''
    nullify(p3)
    call dart_array_interior(u, p3, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_interior', 'p has rank 3', &
                    'a pointer of the wrong rank')
    call dart_array_local(u, p2)
    msg = ''
    call dart_array_update_halo_end(u, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_update_halo_end', 'no update', &
                    'end without begin')
    call dart_array_update_halo_begin(u)
    msg = ''
    call dart_array_update_halo_begin(u, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_update_halo_begin', 'in flight', &
                    'begin twice')
    call dart_array_update_halo_end(u)
    allocate(buf(3, 4))
    msg = ''
    call dart_array_get(u, [0, 0, 0], buf, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_get', 'size(lo) = 3', 'size(lo)')
    msg = ''
    call dart_array_get(u, [3, 0], buf, stat=st, errmsg=msg)   ! rows 3..5 of 0..4
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_get', 'is not inside', &
                    'a region beyond the array')
    msg = ''
    call dart_array_put(u, [-1, 0], buf, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_put', 'is not inside', &
                    'a negative index')
    msg = ''
    call dart_array_get(u, [0, 0], buf(3:1:-1, :), stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_get', 'negative stride', &
                    'a reversed section')
    msg = ''
    call dart_array_get(u, [0, 0], buf(:, 1), stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_get', 'buf has rank 1', &
                    'a buffer of the wrong rank')
    msg = ''
    ix = 0
    call dart_array_get(u, [0, 0], ix, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_get', 'buf is integer(int32)', &
                    'a buffer of the wrong type')
    msg = ''
    call dart_array_query(u, lo=small, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_query', 'size(lo) = 1', &
                    'a query array too small')
    msg = ''
    lo = [0, nunits + 1]
    call dart_array_dims_create(nunits, lo, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_dims_create', 'do not divide', &
                    'a grid that does not divide the units')
    call check(all(lo == [0, nunits + 1]), 'a failed dart_array_dims_create leaves procs alone')
    msg = ''
    call dart_array_block(u, nunits, lo, lo, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_block', 'not a unit', 'block of no unit')
    ! gather: a root buffer of the wrong shape fails on every unit (the root names it)
    allocate(whole(4 * nunits, 5))
    msg = ''
    call dart_array_gather(u, whole, last, stat=st, errmsg=msg)
    if (me == last) then
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_gather', 'global shape', &
                      'gather into a transposed buffer')
    else
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_gather', 'another unit failed', &
                      'gather into a transposed buffer on the root')
    end if
    deallocate(whole)
    allocate(whole(5, 4 * nunits))
    whole = 1
    if (nunits > 1) then   ! roots that differ
      msg = ''
      call dart_array_scatter(u, whole, merge(1, 0, me == 1), stat=st, errmsg=msg)
      call check(st == DART_ERR_INVAL, 'scatter with different roots fails everywhere')
    end if
    msg = ''
    call dart_array_scatter(u, whole, nunits, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_scatter', 'root', 'scatter from no unit')
    call dart_array_scatter(u, whole, 0, stat=st)
    call check(st == DART_OK .and. all(p2(0:4, lbound(p2, 2) + 1:ubound(p2, 2) - 1) == 1), &
               'after the errors the array still works')
    ! destroy twice; v never created
    call dart_array_destroy(u, stat=st)
    call check_ok(st, 'destroy')
    msg = ''
    call dart_array_destroy(u, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_destroy', 'DART_ARRAY_NULL', &
                    'destroy twice')
    msg = ''
    call dart_array_update_halo(v, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_update_halo', 'DART_ARRAY_NULL', &
                    'an array never created')
  end subroutine bad_input

  !> A create that fails on every unit with the same argument, naming `part`.
  subroutine all_fail_create(what, shape, part)
    character(len=*), intent(in) :: what, part
    integer, intent(in) :: shape(:)
    type(dart_array) :: u
    integer :: st
    character(len=400) :: msg
    msg = ''
    call dart_array_create(u, DART_TYPE_DOUBLE, shape, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_create', part, what)
    call check(u == DART_ARRAY_NULL, what // ': u untouched')
  end subroutine all_fail_create

end program ftest_array
