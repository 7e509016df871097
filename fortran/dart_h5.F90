! SPDX-License-Identifier: BSD-3-Clause
! dart_h5: HDF5 files of distributed arrays (dart_h5.h) in module `dart`: open and close a
! file on a team, write an array as a dataset or as the next step of a time series, read
! a dataset (or one step) into a new array with any decomposition, and attributes
! (real64, integer int32/int64 scalars and 1-d arrays, strings). Private to the library;
! module `dart` re-exports the public names.
!
! Dimensions as everywhere in the module: the dataset's shape is the C-order shape, the
! reverse of the Fortran one, so that h5py's T[i, j] is the point a Python user wrote as
! T[i, j] and a Fortran user as u(j, i). `dims` names are given in Fortran order too (the
! first names Fortran dimension 1, the dataset's last).
module dart_h5
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64
  use dart_c_binding
  use dart_f_base
  use dart_arrays, only: dartf_array_read_spec
  implicit none
  private

  public :: dart_h5_file, DART_H5_FILE_NULL, dart_h5_available
  public :: dart_h5_open, dart_h5_close, dart_array_write_h5, dart_array_append_h5
  public :: dart_array_read_h5, dart_h5_set_attr, dart_h5_get_attr

  !> An HDF5 file open on every unit of a team (dart_h5_t).
  type, bind(C) :: dart_h5_file
    type(c_ptr) :: ptr = c_null_ptr
  end type dart_h5_file
  type(dart_h5_file), parameter :: DART_H5_FILE_NULL = dart_h5_file(c_null_ptr)

  integer(DART_DATATYPE_KIND), parameter :: H5_STRING = -1_DART_DATATYPE_KIND

  !> Set an attribute: a real64 or integer (int32, int64) scalar or 1-d array, or a string.
  interface dart_h5_set_attr
    module procedure set_real64, set_real64_1, set_int32, set_int32_1, set_int64, &
      set_int64_1, set_string
  end interface dart_h5_set_attr

  !> Get an attribute into a real64 or integer (int32, int64) scalar or 1-d array (of at
  !> least its count: n returns it), or a string (blank-padded).
  interface dart_h5_get_attr
    module procedure get_real64, get_real64_1, get_int32, get_int32_1, get_int64, &
      get_int64_1, get_string
  end interface dart_h5_get_attr

  interface
    function c_available() bind(C, name="dart_h5_available") result(yes)
      import :: c_int
      integer(c_int) :: yes
    end function
    function c_open(path, mode, team, file) bind(C, name="dart_h5_open") result(rc)
      import :: c_int, c_char, c_int16_t, dart_h5_file
      character(kind=c_char), intent(in) :: path(*), mode(*)
      integer(c_int16_t), value :: team
      type(dart_h5_file), intent(inout) :: file
      integer(c_int) :: rc
    end function
    function c_close(file) bind(C, name="dart_h5_close") result(rc)
      import :: c_int, dart_h5_file
      type(dart_h5_file), intent(inout) :: file
      integer(c_int) :: rc
    end function
    function c_write(file, name, array, dims) bind(C, name="dart_array_write_h5_dims") result(rc)
      import :: c_int, c_ptr, c_char, dart_h5_file
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: array, dims
      integer(c_int) :: rc
    end function
    function c_append(file, name, array, dims) bind(C, name="dart_array_append_h5_dims") &
        result(rc)
      import :: c_int, c_ptr, c_char, dart_h5_file
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: array, dims
      integer(c_int) :: rc
    end function
    function c_read(file, name, spec, array) bind(C, name="dart_array_read_h5") result(rc)
      import :: c_int, c_char, dart_h5_file, c_dart_array_spec, dart_array
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: name(*)
      type(c_dart_array_spec), intent(in) :: spec
      type(dart_array), intent(inout) :: array
      integer(c_int) :: rc
    end function
    function c_read_step(file, name, step, spec, array) bind(C, name="dart_array_read_h5_step") &
        result(rc)
      import :: c_int, c_char, c_int64_t, dart_h5_file, c_dart_array_spec, dart_array
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: step
      type(c_dart_array_spec), intent(in) :: spec
      type(dart_array), intent(inout) :: array
      integer(c_int) :: rc
    end function
    function c_info(file, name, ndim, shape, dtype, comps) bind(C, name="dart_h5_dataset_info") &
        result(rc)
      import :: c_int, c_char, c_int32_t, c_int64_t, c_intptr_t, dart_h5_file
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int32_t), intent(out) :: ndim, comps
      integer(c_int64_t), intent(out) :: shape(*)
      integer(c_intptr_t), intent(out) :: dtype
      integer(c_int) :: rc
    end function
    function c_set_attr(file, object, key, dtype, count, value) bind(C, name="dart_h5_set_attr") &
        result(rc)
      import :: c_int, c_char, c_int64_t, c_intptr_t, c_ptr, dart_h5_file
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: object(*), key(*)
      integer(c_intptr_t), value :: dtype
      integer(c_int64_t), value :: count
      type(c_ptr), value :: value
      integer(c_int) :: rc
    end function
    function c_get_attr(file, object, key, dtype, capacity, value, count) &
        bind(C, name="dart_h5_get_attr") result(rc)
      import :: c_int, c_char, c_int64_t, c_intptr_t, c_ptr, dart_h5_file
      type(dart_h5_file), value :: file
      character(kind=c_char), intent(in) :: object(*), key(*)
      integer(c_intptr_t), value :: dtype
      integer(c_int64_t), value :: capacity
      type(c_ptr), value :: value
      integer(c_int64_t), intent(out) :: count
      integer(c_int) :: rc
    end function
  end interface

contains

  function cstr(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c
    c = trim(s) // c_null_char
  end function cstr

  subroutine finish(rc, fname, stat, errmsg)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: fname
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (rc == DART_OK) then
      call dartf_finish(rc, fname, stat, errmsg)
    else
      call dartf_finish(rc, fname, stat, errmsg, msg=dartf_c_string(c_dart_error_detail()))
    end if
  end subroutine finish

  !> Local: .true. if this build of DART-MPI has parallel HDF5.
  logical function dart_h5_available()
    dart_h5_available = c_available() /= 0
  end function dart_h5_available

  !> Collective over `team` (default DART_TEAM_ALL): open the HDF5 file `path` with mode
  !> 'w' (create; it replaces an existing file at close, if every call on it succeeded),
  !> 'a' (add to an existing file) or 'r' (read).
  subroutine dart_h5_open(f, path, mode, team, stat, errmsg)
    type(dart_h5_file), intent(inout) :: f
    character(len=*), intent(in) :: path, mode
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(DART_TEAM_KIND) :: t
    type(dart_h5_file) :: g
    integer(c_int) :: rc
    t = DART_TEAM_ALL
    if (present(team)) t = team
    rc = c_open(cstr(path), cstr(mode), t, g)
    if (rc == DART_OK) f = g
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_h5_open', stat, errmsg)
  end subroutine dart_h5_open

  !> Collective: close the file (f becomes DART_H5_FILE_NULL).
  subroutine dart_h5_close(f, stat, errmsg)
    type(dart_h5_file), intent(inout) :: f
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_close(f)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_h5_close', stat, errmsg)
  end subroutine dart_h5_close

  !> The C array of dims names (Fortran order reversed: column k of store is C name k),
  !> or c_null_ptr.
  subroutine c_names(dims, store, ptrs, p)
    character(len=*), intent(in), optional :: dims(:)
    character(kind=c_char), allocatable, target, intent(inout) :: store(:, :)
    type(c_ptr), allocatable, target, intent(inout) :: ptrs(:)
    type(c_ptr), intent(out) :: p
    integer :: k, n, c, w
    p = c_null_ptr
    if (.not. present(dims)) return
    n = size(dims)
    w = len(dims) + 1
    allocate(store(w, n), ptrs(n))
    store = c_null_char
    do k = 1, n
      do c = 1, len_trim(dims(n + 1 - k))
        store(c, k) = dims(n + 1 - k)(c:c)
      end do
      ptrs(k) = c_loc(store(1, k))
    end do
    p = c_loc(ptrs)
  end subroutine c_names

  !> Collective: write u as the new dataset `name` of f (refused if it exists); dims names
  !> its dimensions in Fortran order (default: dim_0 ... of the C order).
  subroutine dart_array_write_h5(f, name, u, dims, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: name
    type(dart_array), intent(in) :: u
    character(len=*), intent(in), optional :: dims(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char), allocatable, target :: store(:, :)
    type(c_ptr), allocatable, target :: ptrs(:)
    type(c_ptr) :: p
    integer(c_int) :: rc
    call c_names(dims, store, ptrs, p)
    rc = c_write(f, cstr(name), dartf_array_ptr(u), p)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_write_h5', stat, errmsg)
  end subroutine dart_array_write_h5

  !> Collective: append u as the next step of the time series `name` (created by the first
  !> call; its steps are the dataset's first C dimension). dims: ndim + 1 names in Fortran
  !> order (the steps' last), used when the series is created.
  subroutine dart_array_append_h5(f, name, u, dims, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: name
    type(dart_array), intent(in) :: u
    character(len=*), intent(in), optional :: dims(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char), allocatable, target :: store(:, :)
    type(c_ptr), allocatable, target :: ptrs(:)
    type(c_ptr) :: p
    integer(c_int) :: rc
    call c_names(dims, store, ptrs, p)
    rc = c_append(f, cstr(name), dartf_array_ptr(u), p)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_array_append_h5', stat, errmsg)
  end subroutine dart_array_append_h5

  !> Collective over the file's team: create u from the dataset `name` (or its step `step`,
  !> 0-based, negative from the end) with the decomposition of the options, those of
  !> dart_array_load (in Fortran order; lists of size 1 apply to every dimension). The
  !> shape and the type are the dataset's (dtype/components: the type it must hold).
  subroutine dart_array_read_h5(f, name, u, step, halo, halo_lo, halo_hi, periodic, stencil, &
                                procs, exchange, blocks, dtype, components, team, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: name
    type(dart_array), intent(inout) :: u
    integer(int64), intent(in), optional :: step
    integer, intent(in), optional :: halo(:), halo_lo(:), halo_hi(:)
    logical, intent(in), optional :: periodic(:)
    integer, intent(in), optional :: stencil, procs(:), exchange, blocks(:)
    integer(DART_DATATYPE_KIND), intent(in), optional :: dtype
    integer, intent(in), optional :: components
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), parameter :: fn = 'dart_array_read_h5'
    type(c_dart_array_spec) :: spec
    type(dart_array) :: a
    integer(c_int64_t), allocatable, target :: cblocks(:)
    character(len=:), allocatable :: why
    integer(c_int) :: rc
    if (.not. dartf_array_read_spec(fn, halo, halo_lo, halo_hi, periodic, stencil, procs, &
                                    exchange, blocks, dtype, components, team, spec, cblocks, &
                                    why, stat, errmsg)) return
    if (allocated(cblocks) .and. len(why) == 0) spec%blocks = c_loc(cblocks)
    if (present(step)) then
      rc = c_read_step(f, cstr(name), int(step, c_int64_t), spec, a)
    else
      rc = c_read(f, cstr(name), spec, a)
    end if
    if (len(why) > 0) then
      call dartf_fail(DART_ERR_INVAL, fn, why, stat, errmsg)
      return
    end if
    if (rc == DART_OK) u = a
    if (rc /= DART_OK .or. present(stat)) call finish(rc, fn, stat, errmsg)
  end subroutine dart_array_read_h5

  ! ---- attributes ----------------------------------------------------------------------

  subroutine set_any(f, object, key, t, n, p, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(DART_DATATYPE_KIND), intent(in) :: t
    integer(int64), intent(in) :: n
    type(c_ptr), intent(in) :: p
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_set_attr(f, cstr(object), cstr(key), t, int(n, c_int64_t), p)
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_h5_set_attr', stat, errmsg)
  end subroutine set_any

  !> Collective: attribute `key` of `object` ('' or '/' for the file, else a dataset).
  subroutine set_real64(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    real(real64), intent(in), target :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_any(f, object, key, DART_TYPE_DOUBLE, 1_int64, c_loc(value), stat, errmsg)
  end subroutine set_real64

  subroutine set_real64_1(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    real(real64), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_any(f, object, key, DART_TYPE_DOUBLE, size(value, kind=int64), c_loc(value), stat, &
                 errmsg)
  end subroutine set_real64_1

  subroutine set_int32(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int32), intent(in), target :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_any(f, object, key, DART_TYPE_INT, 1_int64, c_loc(value), stat, errmsg)
  end subroutine set_int32

  subroutine set_int32_1(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int32), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_any(f, object, key, DART_TYPE_INT, size(value, kind=int64), c_loc(value), stat, &
                 errmsg)
  end subroutine set_int32_1

  subroutine set_int64(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int64), intent(in), target :: value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_any(f, object, key, DART_TYPE_LONGLONG, 1_int64, c_loc(value), stat, errmsg)
  end subroutine set_int64

  subroutine set_int64_1(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int64), intent(in), target, contiguous :: value(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call set_any(f, object, key, DART_TYPE_LONGLONG, size(value, kind=int64), c_loc(value), &
                 stat, errmsg)
  end subroutine set_int64_1

  subroutine set_string(f, object, key, value, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key, value
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char, len=:), allocatable, target :: c
    c = value // c_null_char
    call set_any(f, object, key, H5_STRING, 0_int64, c_loc(c), stat, errmsg)
  end subroutine set_string

  subroutine get_any(f, object, key, t, cap, p, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(DART_DATATYPE_KIND), intent(in) :: t
    integer(int64), intent(in) :: cap
    type(c_ptr), intent(in) :: p
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int64_t) :: count
    rc = c_get_attr(f, cstr(object), cstr(key), t, int(cap, c_int64_t), p, count)
    if (rc == DART_OK .and. present(n)) n = count
    if (rc /= DART_OK .or. present(stat)) call finish(rc, 'dart_h5_get_attr', stat, errmsg)
  end subroutine get_any

  subroutine get_real64(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    real(real64), intent(inout), target :: value
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_any(f, object, key, DART_TYPE_DOUBLE, 1_int64, c_loc(value), n, stat, errmsg)
  end subroutine get_real64

  subroutine get_real64_1(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    real(real64), intent(inout), target, contiguous :: value(:)
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_any(f, object, key, DART_TYPE_DOUBLE, size(value, kind=int64), c_loc(value), n, &
                 stat, errmsg)
  end subroutine get_real64_1

  subroutine get_int32(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int32), intent(inout), target :: value
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_any(f, object, key, DART_TYPE_INT, 1_int64, c_loc(value), n, stat, errmsg)
  end subroutine get_int32

  subroutine get_int32_1(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int32), intent(inout), target, contiguous :: value(:)
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_any(f, object, key, DART_TYPE_INT, size(value, kind=int64), c_loc(value), n, stat, &
                 errmsg)
  end subroutine get_int32_1

  subroutine get_int64(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int64), intent(inout), target :: value
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_any(f, object, key, DART_TYPE_LONGLONG, 1_int64, c_loc(value), n, stat, errmsg)
  end subroutine get_int64

  subroutine get_int64_1(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    integer(int64), intent(inout), target, contiguous :: value(:)
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_any(f, object, key, DART_TYPE_LONGLONG, size(value, kind=int64), c_loc(value), n, &
                 stat, errmsg)
  end subroutine get_int64_1

  !> A string attribute into `value` (blank-padded; refused if longer than len(value)).
  subroutine get_string(f, object, key, value, n, stat, errmsg)
    type(dart_h5_file), intent(in) :: f
    character(len=*), intent(in) :: object, key
    character(len=*), intent(inout) :: value
    integer(int64), intent(out), optional :: n
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char), allocatable, target :: buf(:)
    integer(int64) :: got, k
    integer :: st
    allocate(buf(len(value) + 1))
    buf = c_null_char
    call get_any(f, object, key, H5_STRING, int(len(value) + 1, int64), c_loc(buf), got, st, &
                 errmsg)
    if (present(stat)) stat = st
    if (st /= DART_OK) then
      if (.not. present(stat)) call finish(int(st, c_int), 'dart_h5_get_attr')
      return
    end if
    value = ''
    do k = 1, got
      value(k:k) = buf(k)
    end do
    if (present(n)) n = got
  end subroutine get_string

end module dart_h5
