! SPDX-License-Identifier: BSD-3-Clause
! dart_arrays: distributed N-d arrays with ghost layers (dart_array.h) in module `dart`: the
! wrappers without buffers (create, destroy, copy, the halo updates, the queries, the .npy
! files: save, load, file_info) and the shared bodies of the typed wrappers of
! dart_array_template.inc (private to the library; module `dart` re-exports the public
! names).
!
! Everything per dimension is in Fortran order, the reverse of C's: the array of C shape
! (nx, ny) has the Fortran shape [ny, nx], the same memory is u[i, j] in C and Python and
! u(j, i) here, the unit at C grid coordinates (c0, c1) has coords = [c1, c0], and
! `blocks` lists the extents of Fortran dimension 1's grid coordinates first. Global
! indices stay 0-based (as PETSc's DMDAVecGetArrayF90 has them), so that every index a
! program prints is the same number in C, Python and Fortran; upper bounds are inclusive,
! as Fortran bounds are (C's are half-open).
!
! The decomposition, the neighbour table and the exchange exist once, in the core; this
! layer only reverses the per-dimension lists and checks what C cannot see (the sizes of
! Fortran arrays, the element type of a buffer). Messages of the core name dimensions by
! C's 0-based index: the wrappers add a note saying how to read them.
module dart_arrays
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use dart_c_binding
  use dart_f_base
  implicit none
  private

  public :: dart_array_create, dart_array_destroy, dart_array_copy
  public :: dart_array_update_halo, dart_array_update_halo_begin, dart_array_update_halo_end
  public :: dart_array_query, dart_array_block, dart_array_owner, dart_array_dims_create
  public :: dart_array_save, dart_array_load, dart_array_file_info
  public :: dart_array_norm
  ! for dart_h5.F90
  public :: dartf_array_read_spec
  ! for dart_array_template.inc
  public :: dartf_array_view, dartf_array_region, dartf_array_whole, dartf_array_bounds
  public :: dartf_array_reduce

  !> The note added to the core's messages that name dimensions.
  character(len=*), parameter :: C_ORDER_NOTE = ' [dimensions as the core counts them: ' // &
    'C order from 0, C dimension d is Fortran dimension ndim - d]'

contains

  ! =====================================================================================
  ! Helpers
  ! =====================================================================================

  !> Finish an array call whose failure the core reported: the core's detail, with the
  !> note on its dimension numbers where it names dimensions.
  subroutine finish(rc, fname, stat, errmsg)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: fname
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: detail
    if (rc == DART_OK) then
      call dartf_finish(rc, fname, stat, errmsg)
      return
    end if
    detail = dartf_c_string(c_dart_error_detail())
    if (names_dimension(detail)) detail = detail // C_ORDER_NOTE
    call dartf_finish(rc, fname, stat, errmsg, msg=detail)
  end subroutine finish

  !> Whether a message of the core names a dimension by its C index: "dimension <d>" or
  !> a list or entry in C order, "[<d>" ("procs[0]", "halo_lo [1, 0]"); not "a
  !> 5-dimensional array", nor a path with brackets of its own.
  pure logical function names_dimension(text)
    character(len=*), intent(in) :: text
    integer :: k
    names_dimension = .false.
    do k = 1, len(text) - 1
      if (text(k:k) == '[' .and. verify(text(k + 1:k + 1), '0123456789') == 0) then
        names_dimension = .true.
      else if (k + 10 <= len(text)) then
        if (text(k:k + 9) == 'dimension ' .and. &
            verify(text(k + 10:k + 10), '0123456789') == 0) names_dimension = .true.
      end if
      if (names_dimension) return
    end do
  end function names_dimension

  !> "<n>" for messages.
  function itoa(n) result(s)
    integer(int64), intent(in) :: n
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write(buf, '(i0)') n
    s = trim(buf)
  end function itoa

  !> The info of array u (core order), or a failure finished under fname.
  integer(c_int) function get_info(u, fname, info, stat, errmsg) result(rc)
    type(dart_array), intent(in) :: u
    character(len=*), intent(in) :: fname
    type(c_dart_array_info), intent(inout) :: info
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    rc = c_dart_array_get_info(dartf_array_ptr(u), info)
    if (rc /= DART_OK) call finish(rc, fname, stat, errmsg)
  end function get_info

  !> Whether a buffer of Fortran kind bkind (integer if bint, else real or complex), bparts
  !> reals per element, suits the points of the array `info`; else the reason.
  logical function type_fits(info, bkind, bint, bparts, blabel, what, why)
    type(c_dart_array_info), intent(in) :: info
    integer, intent(in) :: bkind, bparts
    logical, intent(in) :: bint
    character(len=*), intent(in) :: blabel, what
    character(len=:), allocatable, intent(inout) :: why
    character(len=:), allocatable :: holds
    integer :: t
    t = int(info%dtype)
    type_fits = .false.
    if (t >= 1 .and. t <= size(DARTF_TYPE_KIND)) then
      type_fits = DARTF_TYPE_KIND(t) == bkind .and. (DARTF_TYPE_INTEGER(t) .eqv. bint) .and. &
                  info%components == bparts
      holds = trim(DARTF_TYPE_NAME(t))
    else
      holds = 'DART type ' // itoa(int(t, int64))
    end if
    if (type_fits) return
    if (info%components /= 1) holds = holds // ' x ' // itoa(int(info%components, int64))
    why = what // ' is ' // blabel // ' but the array holds points of ' // holds
    if (bparts == 2) why = why // ' (a complex array has components=2)'
  end function type_fits

  !> size(x) of an optional array argument, 0 if absent.
  pure integer function opt_size(x)
    integer, intent(in), optional :: x(:)
    opt_size = 0
    if (present(x)) opt_size = size(x)
  end function opt_size

  ! =====================================================================================
  ! Creation, destruction, copy
  ! =====================================================================================

  !> Collective over `team` (default DART_TEAM_ALL): create u, a global array of
  !> size(shape) = 1 .. DART_ARRAY_MAX_DIMS dimensions of basic type dtype (complex:
  !> DART_TYPE_FLOAT/DOUBLE with components=2), block-distributed on a process grid.
  !> Every argument per dimension is in Fortran order; a halo, halo_lo, halo_hi or
  !> periodic of size 1 applies to every dimension. halo = the width on both sides (or
  !> halo_lo/halo_hi, not with halo); procs: units per dimension, 0 = chosen (the
  !> reverse of C's choice: balanced, non-increasing in C order); blocks: sum(procs)
  !> extents, those of dimension 1's grid coordinates first (needs every procs given).
  !> All or nothing: a bad or different argument on any unit fails on every unit; the unit
  !> whose argument is bad reports it, the others "another unit failed: unit U ...". Every
  !> block, ghosts included, starts at zero.
  subroutine dart_array_create(u, dtype, shape, halo, halo_lo, halo_hi, periodic, stencil, &
                               procs, team, exchange, blocks, components, stat, errmsg)
    type(dart_array), intent(inout) :: u
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: shape(:)
    integer, intent(in), optional :: halo(:), halo_lo(:), halo_hi(:)
    logical, intent(in), optional :: periodic(:)
    integer, intent(in), optional :: stencil
    integer, intent(in), optional :: procs(:)
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(in), optional :: exchange
    integer, intent(in), optional :: blocks(:)
    integer, intent(in), optional :: components
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_create'
    type(c_dart_array_spec) :: spec
    type(dart_array) :: a
    integer(c_int64_t), allocatable, target :: cblocks(:)
    character(len=:), allocatable :: why
    integer(c_int) :: rc
    integer :: nd, k
    if (start_spec(fn, team, stencil, exchange, components, spec, stat, errmsg) /= DART_OK) return
    nd = size(shape)
    spec%dtype = dtype
    spec%ndim = int(nd, c_int32_t)   ! out of range: the core says so, on every unit
    why = ''
    if (nd >= 1 .and. nd <= DART_ARRAY_MAX_DIMS) then
      call fill_spec(nd, nd, 'size(shape)', halo, halo_lo, halo_hi, periodic, procs, blocks, &
                     spec, cblocks, why)
      do k = 1, nd
        spec%shape(nd + 1 - k) = int(shape(k), c_int64_t)
      end do
      if (allocated(cblocks)) spec%blocks = c_loc(cblocks)
    end if
    ! An argument only this layer can judge: the unit still joins the team's agreement,
    ! with an empty spec (ndim 0), so that every unit fails and none waits.
    if (len(why) > 0) then
      spec%ndim = 0
      spec%blocks = c_null_ptr
    end if
    rc = c_dart_array_create(spec, a)
    call finish_new(rc, a, why, fn, u, stat, errmsg)
  end subroutine dart_array_create

  !> The start of dart_array_create and dart_array_load: spec initialized, with the
  !> options that are not lists. A failure is finished under fn.
  integer(c_int) function start_spec(fn, team, stencil, exchange, components, spec, stat, &
                                     errmsg) result(rc)
    character(len=*), intent(in) :: fn
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(in), optional :: stencil, exchange, components
    type(c_dart_array_spec), intent(inout) :: spec
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    rc = c_dart_array_spec_init(spec)
    if (rc /= DART_OK) then
      call finish(rc, fn, stat, errmsg)
      return
    end if
    if (present(team)) spec%team = team
    if (present(components)) spec%components = int(components, c_int32_t)
    if (present(stencil)) spec%stencil = int(stencil, c_int32_t)
    if (present(exchange)) spec%exchange = int(exchange, c_int32_t)
  end function start_spec

  !> The end of dart_array_create and dart_array_load, after the core's call: the argument
  !> this layer found bad (why, the unit's own report), else the core's outcome; u = a on
  !> success.
  subroutine finish_new(rc, a, why, fn, u, stat, errmsg)
    integer(c_int), intent(in) :: rc
    type(dart_array), intent(in) :: a
    character(len=*), intent(in) :: why, fn
    type(dart_array), intent(inout) :: u
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fn, why, stat, errmsg)
      return
    end if
    if (rc == DART_OK) u = a
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fn, stat, errmsg)
  end subroutine finish_new

  !> The lists per dimension of dart_array_create and dart_array_load into spec, each
  !> reversed into C order. nd: the number of dimensions the lists must fit
  !> (each of halo, halo_lo, halo_hi, periodic of size 1 or nd, procs of size nd; `ref`
  !> names where nd comes from, for the messages); nfill: the entries of spec to set
  !> (nd, or DART_ARRAY_MAX_DIMS when only lists of size 1 are given and the file
  !> decides the number of dimensions). cblocks: the given blocks in C order (the caller
  !> points spec%blocks at them). why: the first argument found bad, else unchanged ('').
  subroutine fill_spec(nd, nfill, ref, halo, halo_lo, halo_hi, periodic, procs, blocks, spec, &
                       cblocks, why)
    integer, intent(in) :: nd, nfill
    character(len=*), intent(in) :: ref
    integer, intent(in), optional :: halo(:), halo_lo(:), halo_hi(:)
    logical, intent(in), optional :: periodic(:)
    integer, intent(in), optional :: procs(:), blocks(:)
    type(c_dart_array_spec), intent(inout) :: spec
    integer(c_int64_t), allocatable, intent(inout) :: cblocks(:)
    character(len=:), allocatable, intent(inout) :: why
    integer :: k, c, at, off
    call per_dim('halo', present(halo), opt_size(halo))
    call per_dim('halo_lo', present(halo_lo), opt_size(halo_lo))
    call per_dim('halo_hi', present(halo_hi), opt_size(halo_hi))
    if (present(periodic)) call per_dim('periodic', .true., size(periodic))
    if (present(procs)) then
      if (size(procs) /= nd .and. len(why) == 0) &
        why = 'size(procs) = ' // itoa(size(procs, kind=int64)) // ' differs from ' // ref // &
              ' = ' // itoa(int(nd, int64))
    end if
    if (present(halo) .and. (present(halo_lo) .or. present(halo_hi)) .and. len(why) == 0) &
      why = 'give halo or halo_lo/halo_hi, not both'
    if (len(why) > 0) return
    do k = 1, nfill
      c = nfill + 1 - k                  ! C dimension c - 1
      if (present(procs)) spec%procs(c) = int(procs(k), c_int32_t)
      if (present(halo)) then
        spec%halo_lo(c) = int(pick(halo, k), c_int32_t)
        spec%halo_hi(c) = spec%halo_lo(c)
      end if
      if (present(halo_lo)) spec%halo_lo(c) = int(pick(halo_lo, k), c_int32_t)
      if (present(halo_hi)) spec%halo_hi(c) = int(pick(halo_hi, k), c_int32_t)
      if (present(periodic)) then
        spec%boundary(c) = DART_ARRAY_BOUNDARY_NONE
        if (periodic(min(k, size(periodic)))) spec%boundary(c) = DART_ARRAY_BOUNDARY_PERIODIC
      end if
    end do
    if (.not. present(blocks)) return
    if (present(procs)) then
      if (all(procs > 0)) then
        ! Fortran lists dimension 1's blocks first, C dimension 0's (Fortran's last).
        if (size(blocks) /= sum(procs)) then
          why = 'size(blocks) = ' // itoa(size(blocks, kind=int64)) // ' differs from ' // &
                'sum(procs) = ' // itoa(int(sum(procs), int64))
          return
        end if
        allocate(cblocks(size(blocks)))
        at = 0
        do c = 1, nd
          k = nd + 1 - c
          off = sum(procs(1:k - 1))
          cblocks(at + 1:at + procs(k)) = int(blocks(off + 1:off + procs(k)), c_int64_t)
          at = at + procs(k)
        end do
      end if
    end if
    ! Without every procs given the core refuses the blocks before reading them.
    if (.not. allocated(cblocks)) cblocks = int(blocks, c_int64_t)

  contains

    subroutine per_dim(name, given, n)
      character(len=*), intent(in) :: name
      logical, intent(in) :: given
      integer, intent(in) :: n
      if (.not. given .or. len(why) > 0) return
      if (n /= 1 .and. n /= nd) why = 'size(' // name // ') = ' // itoa(int(n, int64)) // &
        ' must be 1 or ' // ref // ' = ' // itoa(int(nd, int64))
    end subroutine per_dim

    pure integer function pick(x, k)
      integer, intent(in) :: x(:), k
      pick = x(min(k, size(x)))
    end function pick

  end subroutine fill_spec

  !> Collective: free u and its memory (an update begun and not ended is ended first); u
  !> becomes DART_ARRAY_NULL.
  subroutine dart_array_destroy(u, stat, errmsg)
    type(dart_array), intent(inout) :: u
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_array_destroy(u)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_destroy', stat, errmsg)
  end subroutine dart_array_destroy

  !> Collective: v = a new array with u's distribution, halos and options, every block
  !> (ghosts included) a copy of u's. All or nothing, as dart_array_create.
  subroutine dart_array_copy(u, v, stat, errmsg)
    type(dart_array), intent(in) :: u
    type(dart_array), intent(inout) :: v
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    type(dart_array) :: a
    rc = c_dart_array_copy(dartf_array_ptr(u), a)
    if (rc == DART_OK) v = a
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_copy', stat, errmsg)
  end subroutine dart_array_copy

  ! =====================================================================================
  ! Halo updates
  ! =====================================================================================

  !> Collective, neighbours only: fill my ghosts with the neighbours' interior values (as
  !> of their call). On return I may write my interior and my ghosts.
  subroutine dart_array_update_halo(u, stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_array_update_halo(dartf_array_ptr(u))
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_update_halo', stat, errmsg)
  end subroutine dart_array_update_halo

  !> Start an update. Until dart_array_update_halo_end, read the interior only: do not
  !> write it, do not touch the ghosts. Several arrays may have updates in flight.
  subroutine dart_array_update_halo_begin(u, stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_array_update_halo_begin(dartf_array_ptr(u))
    if (rc /= DART_OK .or. present(stat)) &
      call finish(rc, 'dart_array_update_halo_begin', stat, errmsg)
  end subroutine dart_array_update_halo_begin

  !> Complete the update begun by dart_array_update_halo_begin (as dart_array_update_halo
  !> on return).
  subroutine dart_array_update_halo_end(u, stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_array_update_halo_end(dartf_array_ptr(u))
    if (rc /= DART_OK .or. present(stat)) &
      call finish(rc, 'dart_array_update_halo_end', stat, errmsg)
  end subroutine dart_array_update_halo_end

  ! =====================================================================================
  ! Queries (local)
  ! =====================================================================================

  !> What this unit knows about u, every list in Fortran order (the first ndim entries of
  !> each array argument are written; it must have at least ndim): the global shape, the
  !> process grid procs and my coords in it (0-based), my block lo .. hi (global 0-based
  !> indices, hi inclusive), the ghost widths, the periodic dimensions; the basic type and
  !> components of a point, the stencil, the exchange in use (never _AUTO), the team,
  !> my id in it and its size. Nothing is written on failure.
  subroutine dart_array_query(u, procs, coords, lo, hi, shape, halo_lo, halo_hi, periodic, &
                              ndim, dtype, components, stencil, exchange, team, myid, nunits, &
                              stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(inout), optional :: procs(:), coords(:), lo(:), hi(:), shape(:)
    integer, intent(inout), optional :: halo_lo(:), halo_hi(:)
    logical, intent(inout), optional :: periodic(:)
    integer, intent(inout), optional :: ndim, components, stencil, exchange, myid, nunits
    integer(DART_DATATYPE_KIND), intent(inout), optional :: dtype
    integer(DART_TEAM_KIND), intent(inout), optional :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_query'
    type(c_dart_array_info) :: info
    character(len=:), allocatable :: why
    integer :: nd, k
    if (get_info(u, fn, info, stat, errmsg) /= DART_OK) return
    nd = int(info%ndim)
    why = ''
    call room('procs', present(procs), opt_size(procs))
    call room('coords', present(coords), opt_size(coords))
    call room('lo', present(lo), opt_size(lo))
    call room('hi', present(hi), opt_size(hi))
    call room('shape', present(shape), opt_size(shape))
    call room('halo_lo', present(halo_lo), opt_size(halo_lo))
    call room('halo_hi', present(halo_hi), opt_size(halo_hi))
    if (present(periodic)) call room('periodic', .true., size(periodic))
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fn, why, stat, errmsg)
      return
    end if
    if (present(procs)) procs(1:nd) = int(info%procs(nd:1:-1))
    if (present(coords)) coords(1:nd) = int(info%coords(nd:1:-1))
    if (present(lo)) lo(1:nd) = int(info%lo(nd:1:-1))
    if (present(hi)) hi(1:nd) = int(info%hi(nd:1:-1)) - 1
    if (present(shape)) shape(1:nd) = int(info%shape(nd:1:-1))
    if (present(halo_lo)) halo_lo(1:nd) = int(info%halo_lo(nd:1:-1))
    if (present(halo_hi)) halo_hi(1:nd) = int(info%halo_hi(nd:1:-1))
    if (present(periodic)) then
      do k = 1, nd
        periodic(k) = info%boundary(nd + 1 - k) == DART_ARRAY_BOUNDARY_PERIODIC
      end do
    end if
    if (present(ndim)) ndim = nd
    if (present(dtype)) dtype = info%dtype
    if (present(components)) components = int(info%components)
    if (present(stencil)) stencil = int(info%stencil)
    if (present(exchange)) exchange = int(info%exchange)
    if (present(team)) team = info%team
    if (present(myid)) myid = int(info%myid)
    if (present(nunits)) nunits = int(info%nunits)
    if (present(stat)) stat = DART_OK

  contains

    subroutine room(name, given, n)
      character(len=*), intent(in) :: name
      logical, intent(in) :: given
      integer, intent(in) :: n
      if (.not. given .or. n >= nd .or. len(why) > 0) return
      why = 'size(' // name // ') = ' // itoa(int(n, int64)) // ' is less than the ' // &
            'array''s ' // itoa(int(nd, int64)) // ' dimensions'
    end subroutine room

  end subroutine dart_array_query

  !> The process grid dart_array_create chooses for nunits units: fills the 0 entries of
  !> procs (Fortran order, size(procs) = the number of dimensions), keeping the given ones;
  !> C's rule on the reversed list (balanced, non-increasing in C order). DART_ERR_INVAL if
  !> the given entries do not divide nunits (procs is then untouched). Local.
  subroutine dart_array_dims_create(nunits, procs, stat, errmsg)
    integer, intent(in) :: nunits
    integer, intent(inout) :: procs(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int32_t) :: cprocs(max(size(procs), 1))
    integer(c_int) :: rc
    integer :: nd
    nd = size(procs)
    cprocs = 0
    if (nd >= 1) cprocs(1:nd) = int(procs(nd:1:-1), c_int32_t)
    rc = c_dart_array_dims_create(int(nunits, c_int32_t), int(nd, c_int32_t), cprocs)
    if (rc == DART_OK) procs = int(cprocs(nd:1:-1))
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_dims_create', stat, errmsg)
  end subroutine dart_array_dims_create

  !> The block lo .. hi (global 0-based indices, hi inclusive, Fortran order) of team unit
  !> `unit` (any unit of u's team). lo and hi need at least ndim entries.
  subroutine dart_array_block(u, unit, lo, hi, stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(in) :: unit
    integer, intent(inout) :: lo(:), hi(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_block'
    type(c_dart_array_info) :: info
    integer(c_int64_t) :: clo(DART_ARRAY_MAX_DIMS), chi(DART_ARRAY_MAX_DIMS)
    integer(c_int) :: rc
    integer :: nd
    if (get_info(u, fn, info, stat, errmsg) /= DART_OK) return
    nd = int(info%ndim)
    if (size(lo) < nd .or. size(hi) < nd) then
      call dartf_fail(DART_ERR_INVAL, fn, 'lo and hi need ' // itoa(int(nd, int64)) // &
                      ' entries (the array''s dimensions)', stat, errmsg)
      return
    end if
    clo = 0
    chi = 0
    rc = c_dart_array_block(dartf_array_ptr(u), int(unit, c_int32_t), clo, chi)
    if (rc == DART_OK) then
      lo(1:nd) = int(clo(nd:1:-1))
      hi(1:nd) = int(chi(nd:1:-1)) - 1
    end if
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fn, stat, errmsg)
  end subroutine dart_array_block

  !> The team unit that owns the global point `index` (0-based, Fortran order).
  subroutine dart_array_owner(u, index, unit, stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(in) :: index(:)
    integer, intent(inout) :: unit
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_owner'
    type(c_dart_array_info) :: info
    integer(c_int64_t) :: cidx(DART_ARRAY_MAX_DIMS)
    integer(c_int32_t) :: owner
    integer(c_int) :: rc
    integer :: nd, k
    if (get_info(u, fn, info, stat, errmsg) /= DART_OK) return
    nd = int(info%ndim)
    if (size(index) /= nd) then
      call dartf_fail(DART_ERR_INVAL, fn, 'size(index) = ' // itoa(size(index, kind=int64)) // &
                      ' differs from the array''s ' // itoa(int(nd, int64)) // ' dimensions', &
                      stat, errmsg)
      return
    end if
    cidx = 0
    do k = 1, nd
      cidx(nd + 1 - k) = int(index(k), c_int64_t)
    end do
    rc = c_dart_array_owner(dartf_array_ptr(u), cidx, owner)
    if (rc == DART_OK) unit = int(owner)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fn, stat, errmsg)
  end subroutine dart_array_owner

  ! =====================================================================================
  ! Files: NumPy .npy, collective, MPI-IO
  ! =====================================================================================

  !> Collective: write u to `path` (trailing blanks ignored, as by OPEN) as one NumPy .npy
  !> file, every unit its own interior with one collective MPI-IO write. The file holds
  !> the C-order array that u is in memory: the Fortran shape [ny, nx] is the .npy shape
  !> (nx, ny) with fortran_order False, so that the file has the bytes of np.save of the
  !> same field in Python (and of dart_array_save in C), whatever the grid or ghosts. All
  !> or nothing: the data goes to a temporary file in path's folder, which replaces path
  !> only after every unit's write succeeded; on failure an existing file at path is
  !> untouched, nothing is left behind, and every unit fails with the same message.
  !> Every unit passes the same path.
  subroutine dart_array_save(u, path, stat, errmsg)
    type(dart_array), intent(in) :: u
    character(len=*), intent(in) :: path
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_array_save(dartf_array_ptr(u), trim(path) // c_null_char)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_save', stat, errmsg)
  end subroutine dart_array_save

  !> Collective over `team` (default DART_TEAM_ALL): create u from the .npy file `path`
  !> (trailing blanks ignored) with the decomposition the options ask for, on any number
  !> of units, and read every interior with one collective MPI-IO read; the ghosts are
  !> zero (dart_array_update_halo fills them). The shape and the point type are the
  !> file's: the .npy shape (nx, ny) is the Fortran shape [ny, nx]. The options are those
  !> of dart_array_create, in Fortran order: a list of size 1 applies to every dimension;
  !> procs, or a halo, halo_lo, halo_hi or periodic of another size, must have as many
  !> entries as the file has dimensions (all of them the same number). dtype (with
  !> components=2 for complex): the point type the file must hold, else it is refused
  !> (DART_TYPE_LONG and _LONGLONG are both '<i8'); absent: the file's (query it with
  !> dart_array_query or dart_array_file_info). Refused on every unit with the same
  !> message, before anything is created: not a .npy file, a truncated file, a dtype DART
  !> cannot hold or not the one required, fortran_order True, a number of dimensions
  !> outside 1 .. DART_ARRAY_MAX_DIMS or not that of the options, a shape the grid cannot
  !> split, and every refusal of dart_array_create. u is written only on success.
  subroutine dart_array_load(u, path, halo, halo_lo, halo_hi, periodic, stencil, procs, team, &
                             exchange, blocks, dtype, components, stat, errmsg)
    type(dart_array), intent(inout) :: u
    character(len=*), intent(in) :: path
    integer, intent(in), optional :: halo(:), halo_lo(:), halo_hi(:)
    logical, intent(in), optional :: periodic(:)
    integer, intent(in), optional :: stencil
    integer, intent(in), optional :: procs(:)
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(in), optional :: exchange
    integer, intent(in), optional :: blocks(:)
    integer(DART_DATATYPE_KIND), intent(in), optional :: dtype
    integer, intent(in), optional :: components
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_load'
    type(c_dart_array_spec) :: spec
    type(dart_array) :: a
    integer(c_int64_t), allocatable, target :: cblocks(:)
    character(len=:), allocatable :: why
    integer(c_int) :: rc
    if (.not. dartf_array_read_spec(fn, halo, halo_lo, halo_hi, periodic, stencil, procs, &
                                    exchange, blocks, dtype, components, team, spec, cblocks, &
                                    why, stat, errmsg)) return
    if (allocated(cblocks) .and. len(why) == 0) spec%blocks = c_loc(cblocks)
    rc = c_dart_array_load(trim(path) // c_null_char, spec, a)
    call finish_new(rc, a, why, fn, u, stat, errmsg)
  end subroutine dart_array_load

  !> The spec of a read of an array from a file (dart_array_load, dart_array_read_h5):
  !> the options in Fortran order, reversed into C's; the number of dimensions is the
  !> file's unless a list says it. False when the spec could not even be initialized (the
  !> failure finished under fn). why: an argument only this layer can judge (the spec
  !> then has ndim -1, so that every unit's read fails and none waits; the caller raises
  !> why after the read). cblocks: the given blocks (point spec%blocks at them).
  logical function dartf_array_read_spec(fn, halo, halo_lo, halo_hi, periodic, stencil, procs, &
                                         exchange, blocks, dtype, components, team, spec, &
                                         cblocks, why, stat, errmsg) result(ok)
    character(len=*), intent(in) :: fn
    integer, intent(in), optional :: halo(:), halo_lo(:), halo_hi(:)
    logical, intent(in), optional :: periodic(:)
    integer, intent(in), optional :: stencil
    integer, intent(in), optional :: procs(:)
    integer, intent(in), optional :: exchange
    integer, intent(in), optional :: blocks(:)
    integer(DART_DATATYPE_KIND), intent(in), optional :: dtype
    integer, intent(in), optional :: components
    integer(DART_TEAM_KIND), intent(in), optional :: team
    type(c_dart_array_spec), intent(inout) :: spec
    integer(c_int64_t), allocatable, intent(inout) :: cblocks(:)
    character(len=:), allocatable, intent(inout) :: why
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: ref
    integer :: nd
    ok = .false.
    why = ''
    if (start_spec(fn, team, stencil, exchange, components, spec, stat, errmsg) /= DART_OK) return
    ok = .true.
    if (present(dtype)) spec%dtype = dtype
    if (present(components) .and. spec%dtype == DART_TYPE_UNDEFINED) &
      why = 'components= needs dtype= (it qualifies the point type the file must hold)'
    ! The number of dimensions the lists speak of: size(procs), else the size of the first
    ! list that is not of size 1; 0 (the file's) if every list applies to all dimensions.
    nd = 0
    ref = ''
    call dims_of('procs', present(procs), opt_size(procs), .true.)
    call dims_of('halo', present(halo), opt_size(halo), .false.)
    call dims_of('halo_lo', present(halo_lo), opt_size(halo_lo), .false.)
    call dims_of('halo_hi', present(halo_hi), opt_size(halo_hi), .false.)
    if (present(periodic)) call dims_of('periodic', .true., size(periodic), .false.)
    spec%ndim = int(nd, c_int32_t)   ! not the file's: the core says so, on every unit
    if (len(why) == 0 .and. nd <= DART_ARRAY_MAX_DIMS) &
      call fill_spec(nd, merge(nd, DART_ARRAY_MAX_DIMS, nd > 0), ref, halo, halo_lo, halo_hi, &
                     periodic, procs, blocks, spec, cblocks, why)
    ! An argument only this layer can judge: the unit still joins the read, with a number
    ! of dimensions no file has, so that every unit fails (after the header) and none
    ! waits; the others' message ends in the core's "... array, not -1".
    if (len(why) > 0) then
      spec%ndim = -1
      spec%blocks = c_null_ptr
    end if

  contains

    subroutine dims_of(name, given, n, any_size)
      character(len=*), intent(in) :: name
      logical, intent(in) :: given, any_size
      integer, intent(in) :: n
      if (.not. given .or. nd > 0 .or. len(why) > 0) return
      if (n == 0) then
        why = 'size(' // name // ') = 0: give one entry for all dimensions, or one per ' // &
              'dimension of the file'
      else if (n /= 1 .or. any_size) then
        nd = n
        ref = 'size(' // name // ')'
      end if
    end subroutine dims_of

  end function dartf_array_read_spec

  !> Local: what the .npy file `path` (trailing blanks ignored) holds, from its header:
  !> the shape in Fortran order (the .npy shape (nx, ny) is [ny, nx]; the first ndim
  !> entries of `shape` are written, it needs at least ndim), the number of dimensions,
  !> the DART basic type and the components of a point (2: complex; '<i8' is
  !> DART_TYPE_LONG). The refusals of dart_array_load (DART_ERR_INVAL with the reason,
  !> DART_ERR_OTHER when the file cannot be read); nothing is written on failure.
  subroutine dart_array_file_info(path, shape, ndim, dtype, components, stat, errmsg)
    character(len=*), intent(in) :: path
    integer, intent(inout), optional :: shape(:)
    integer, intent(inout), optional :: ndim, components
    integer(DART_DATATYPE_KIND), intent(inout), optional :: dtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_file_info'
    integer(c_int32_t) :: nd, comps
    integer(c_int64_t) :: cshape(DART_ARRAY_MAX_DIMS)
    integer(c_intptr_t) :: t
    integer(c_int) :: rc
    nd = 0
    comps = 0
    cshape = 0
    t = DART_TYPE_UNDEFINED
    rc = c_dart_array_file_info(trim(path) // c_null_char, nd, cshape, t, comps)
    if (rc /= DART_OK) then
      call finish(rc, fn, stat, errmsg)
      return
    end if
    if (present(shape)) then
      if (size(shape) < nd) then
        call dartf_fail(DART_ERR_INVAL, fn, 'size(shape) = ' // itoa(size(shape, kind=int64)) // &
                        ' is less than the ' // itoa(int(nd, int64)) // ' dimensions of ''' // &
                        trim(path) // '''', stat, errmsg)
        return
      end if
      if (any(cshape(1:nd) > huge(0))) then
        call dartf_fail(DART_ERR_INVAL, fn, 'an extent of ''' // trim(path) // ''' (' // &
                        itoa(maxval(cshape(1:nd))) // ') does not fit a default integer', &
                        stat, errmsg)
        return
      end if
      shape(1:nd) = int(cshape(nd:1:-1))
    end if
    if (present(ndim)) ndim = int(nd)
    if (present(dtype)) dtype = t
    if (present(components)) components = int(comps)
    if (present(stat)) stat = DART_OK
  end subroutine dart_array_file_info

  ! =====================================================================================
  ! Reductions (collective; dart_array_reduce and dart_array_dot are generic over the
  ! result's type: dart_array_template.inc)
  ! =====================================================================================

  !> Collective over u's team: a norm of u's interior points (never the ghosts) in double,
  !> the same bits on every unit and in every language: kind DART_ARRAY_NORM_1 (the sum of
  !> the magnitudes), DART_ARRAY_NORM_2 (the root of the sum of their squares) or
  !> DART_ARRAY_NORM_INF (the largest); a complex point's magnitude is its abs(). The
  !> order and the refusals are the core's (dart_array.h); r is written only on success.
  subroutine dart_array_norm(u, kind, r, stat, errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(in) :: kind
    real(c_double), intent(inout), target :: r
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_array_norm(dartf_array_ptr(u), int(kind, c_int), c_loc(r))
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_norm', stat, errmsg)
  end subroutine dart_array_norm

  !> dart_array_reduce (v absent) and dart_array_dot (v present): the result into the
  !> scalar at addr, whose Fortran kind is bkind (integer if bint, else real or complex),
  !> bparts reals. A result of another type passes no buffer to the core, so that the
  !> call fails on every unit and nobody waits; this unit then reports the type.
  subroutine dartf_array_reduce(u, op, v, addr, bkind, bint, bparts, blabel, fname, stat, &
                                errmsg)
    type(dart_array), intent(in) :: u
    integer(DART_OPERATION_KIND), intent(in) :: op
    type(dart_array), intent(in), optional :: v
    type(c_ptr), intent(in) :: addr
    integer, intent(in) :: bkind, bparts
    logical, intent(in) :: bint
    character(len=*), intent(in) :: blabel, fname
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_dart_array_info) :: info
    character(len=:), allocatable :: why, what
    integer(c_intptr_t) :: t
    integer(c_int32_t) :: count
    integer(c_int) :: rc
    type(c_ptr) :: p
    integer :: k
    why = ''
    p = addr
    t = DART_TYPE_UNDEFINED
    count = 0
    ! The result's type (a refusal here, the core's, is repeated by the call below).
    if (present(v)) then
      what = 'the dot product'
      rc = c_dart_array_reduce_type(dartf_array_ptr(u), int(DART_OP_SUM, c_intptr_t), t, count)
      if (rc == DART_OK) rc = c_dart_array_get_info(dartf_array_ptr(u), info)
      if (rc == DART_OK) then
        count = 1
        k = int(info%dtype)
        if (info%components == 2 .and. .not. DARTF_TYPE_INTEGER(k)) count = 2
      end if
    else
      what = 'this reduction'
      rc = c_dart_array_reduce_type(dartf_array_ptr(u), int(op, c_intptr_t), t, count)
    end if
    if (rc == DART_OK) then
      k = int(t)
      if (count > 2 .or. (count == 2 .and. DARTF_TYPE_INTEGER(k))) then  ! a vector field
        why = 'the array has ' // itoa(int(count, int64)) // ' components per point: ' // &
              what // ' has as many values, which no scalar holds'
      else if (DARTF_TYPE_KIND(k) /= bkind .or. (DARTF_TYPE_INTEGER(k) .neqv. bint) .or. &
               count /= bparts) then
        why = 'the result is ' // blabel // ' but ' // what // ' of this array is ' // &
              result_label(k, int(count))
      end if
      if (len(why) > 0) p = c_null_ptr
    end if
    if (present(v)) then
      rc = c_dart_array_dot(dartf_array_ptr(u), dartf_array_ptr(v), p)
    else
      rc = c_dart_array_reduce(dartf_array_ptr(u), int(op, c_intptr_t), p)
    end if
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fname, why, stat, errmsg)
      return
    end if
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fname, stat, errmsg)

  contains

    !> The Fortran type of a result of DART type t, n values (2: complex).
    function result_label(t, n) result(s)
      use, intrinsic :: iso_fortran_env, only: int8, int16, int32, real32, real64
      integer, intent(in) :: t, n
      character(len=:), allocatable :: s
      integer :: kk
      kk = DARTF_TYPE_KIND(t)
      if (DARTF_TYPE_INTEGER(t)) then
        if (kk == int8) then
          s = 'integer(int8)'
        else if (kk == int16) then
          s = 'integer(int16)'
        else if (kk == int32) then
          s = 'integer(int32)'
        else if (kk == int64) then
          s = 'integer(int64)'
        else
          s = 'integer(kind=' // itoa(int(kk, int64)) // ')'
        end if
        if (t == int(DART_TYPE_ULONGLONG)) s = s // ' (the bits of an unsigned 64-bit sum)'
        return
      end if
      if (kk == real32) then
        s = 'real32'
      else if (kk == real64) then
        s = 'real64'
      else
        s = 'kind=' // itoa(int(kk, int64))
      end if
      if (n == 2) then
        s = 'complex(' // s // ')'
      else
        s = 'real(' // s // ')'
      end if
    end function result_label

  end subroutine dartf_array_reduce

  ! =====================================================================================
  ! The bodies of the typed wrappers (dart_array_template.inc)
  ! =====================================================================================

  !> For dart_array_local/_interior: u's info, after checking that a pointer of rank
  !> prank and element type (bkind, bint, bparts) fits it. Finishes the call on failure;
  !> on success sets stat.
  integer(c_int) function dartf_array_view(u, prank, bkind, bint, bparts, blabel, fname, info, &
                                           stat, errmsg) result(rc)
    type(dart_array), intent(in) :: u
    integer, intent(in) :: prank, bkind, bparts
    logical, intent(in) :: bint
    character(len=*), intent(in) :: blabel, fname
    type(c_dart_array_info), intent(inout) :: info
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=:), allocatable :: why
    rc = get_info(u, fname, info, stat, errmsg)
    if (rc /= DART_OK) return
    if (.not. type_fits(info, bkind, bint, bparts, blabel, 'p', why)) then
      rc = DART_ERR_INVAL
    else if (prank /= info%ndim) then
      rc = DART_ERR_INVAL
      why = 'p has rank ' // itoa(int(prank, int64)) // ' but the array has ' // &
            itoa(int(info%ndim, int64)) // ' dimensions'
    end if
    call dartf_finish(rc, fname, stat, errmsg, msg=why)
  end function dartf_array_view

  !> The Fortran-order bounds of my block: with ghosts (lb .. ub) and without (lo .. hi),
  !> global 0-based indices, inclusive.
  pure subroutine dartf_array_bounds(info, lb, ub, lo, hi)
    type(c_dart_array_info), intent(in) :: info
    integer(int64), intent(inout) :: lb(:), ub(:), lo(:), hi(:)
    integer :: nd, k, c
    nd = int(info%ndim)
    do k = 1, nd
      c = nd + 1 - k
      lo(k) = info%lo(c)
      hi(k) = info%hi(c) - 1
      lb(k) = info%lo(c) - info%halo_lo(c)
      ub(k) = info%hi(c) - 1 + info%halo_hi(c)
    end do
  end subroutine dartf_array_bounds

  !> dart_array_get / dart_array_put: the region of buf's shape at global index lo
  !> (Fortran order), buf any array or section of the array's rank (or a scalar: one
  !> point), described to the core by its point strides: no copy.
  subroutine dartf_array_region(u, lo, buf, bkind, bint, bparts, blabel, put, fname, stat, &
                                errmsg)
    type(dart_array), intent(in) :: u
    integer, intent(in) :: lo(:)
    type(*), dimension(..), intent(in), target :: buf
    integer, intent(in) :: bkind, bparts
    logical, intent(in) :: bint, put
    character(len=*), intent(in) :: blabel, fname
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_dart_array_info) :: info
    character(len=:), allocatable :: why
    integer(c_size_t) :: ext(DART_ARRAY_MAX_DIMS)
    integer(c_ptrdiff_t) :: str(DART_ARRAY_MAX_DIMS)
    integer(c_int64_t) :: clo(DART_ARRAY_MAX_DIMS), chi(DART_ARRAY_MAX_DIMS)
    integer(c_int64_t) :: cstr(DART_ARRAY_MAX_DIMS)
    type(c_ptr) :: addr
    integer(c_int) :: rc, ndesc
    integer :: nd, k, c
    if (get_info(u, fname, info, stat, errmsg) /= DART_OK) return
    nd = int(info%ndim)
    why = ''
    if (.not. type_fits(info, bkind, bint, bparts, blabel, 'buf', why)) then
      continue
    else if (size(lo) /= nd) then
      why = 'size(lo) = ' // itoa(size(lo, kind=int64)) // ' differs from the array''s ' // &
            itoa(int(nd, int64)) // ' dimensions'
    else if (rank(buf) /= nd .and. rank(buf) /= 0) then
      why = 'buf has rank ' // itoa(int(rank(buf), int64)) // ' but the array has ' // &
            itoa(int(nd, int64)) // ' dimensions (a scalar buf is one point)'
    end if
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fname, why, stat, errmsg)
      return
    end if
    ndesc = c_dartf_descriptor(buf, 1_c_int, addr, ext, str, int(DART_ARRAY_MAX_DIMS, c_int))
    if (ndesc == -1) then
      why = 'buf is an assumed-size array; pass a section with an upper bound'
    else if (ndesc < 0) then
      why = 'a stride of buf is not a multiple of its element size'
    end if
    do k = 1, max(ndesc, 0)
      if (str(k) < 0 .and. len(why) == 0) why = 'buf has a negative stride in dimension ' // &
        itoa(int(k, int64)) // ' (a section such as a(n:1:-1)); reverse it in a copy'
    end do
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fname, why, stat, errmsg)
      return
    end if
    clo = 0
    chi = 0
    cstr = 1
    do k = 1, nd
      c = nd + 1 - k
      clo(c) = int(lo(k), c_int64_t)
      chi(c) = clo(c) + 1
      if (ndesc > 0) then
        chi(c) = clo(c) + int(ext(k), c_int64_t)
        cstr(c) = int(str(k), c_int64_t)
      end if
    end do
    if (put) then
      rc = c_dart_array_put(dartf_array_ptr(u), clo, chi, addr, cstr)
    else
      rc = c_dart_array_get(dartf_array_ptr(u), clo, chi, addr, cstr)
    end if
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fname, stat, errmsg)
  end subroutine dartf_array_region

  !> dart_array_gather / dart_array_scatter: the whole array to or from the contiguous
  !> buffer at addr (shape bshape, Fortran order) on team unit root; elsewhere the buffer
  !> is neither read, written nor checked. A root whose buffer does not fit passes none,
  !> so that the call fails on every unit (the core's agreement) and nobody waits.
  subroutine dartf_array_whole(u, addr, bshape, bkind, bint, bparts, blabel, root, put, fname, &
                               stat, errmsg)
    type(dart_array), intent(in) :: u
    type(c_ptr), intent(in) :: addr
    integer(int64), intent(in) :: bshape(:)
    integer, intent(in) :: bkind, bparts, root
    logical, intent(in) :: bint, put
    character(len=*), intent(in) :: blabel, fname
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(c_dart_array_info) :: info
    character(len=:), allocatable :: why
    type(c_ptr) :: p
    integer(c_int) :: rc
    integer :: nd
    if (get_info(u, fname, info, stat, errmsg) /= DART_OK) return
    nd = int(info%ndim)
    why = ''
    p = c_null_ptr
    if (root == info%myid) then
      if (.not. type_fits(info, bkind, bint, bparts, blabel, 'buf', why)) then
        continue
      else if (size(bshape) /= nd) then
        why = 'buf has rank ' // itoa(size(bshape, kind=int64)) // ' on the root but the ' // &
              'array has ' // itoa(int(nd, int64)) // ' dimensions'
      else if (any(bshape /= info%shape(nd:1:-1))) then
        why = 'buf on the root does not have the global shape of the array'
      else
        p = addr
      end if
    end if
    if (put) then
      rc = c_dart_array_scatter(dartf_array_ptr(u), p, int(root, c_int32_t))
    else
      rc = c_dart_array_gather(dartf_array_ptr(u), p, int(root, c_int32_t))
    end if
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fname, why, stat, errmsg)
      return
    end if
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fname, stat, errmsg)
  end subroutine dartf_array_whole

end module dart_arrays
