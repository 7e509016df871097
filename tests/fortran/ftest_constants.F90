! SPDX-License-Identifier: BSD-3-Clause
! ftest_constants: every named constant of module `dart` against the value of the C
! headers. The Fortran constants of the lists of dart_tables.h are generated
! (cmake/DartTables.cmake); ftest_constants_c.c gives the values of the #defines and enums
! of dart_types.h by name. The lists are expanded here too (the preprocessor reads
! dart_tables.h), so a missing or renamed Fortran constant stops the compilation and a
! wrong value fails a check. Also: each buffer type's datatype (dart_datatype_of) has the
! size and kind of number of the C type of that DART type. And the bind(C) mirrors of the
! structs of dart_array.h against C's offsetof and sizeof, field by field.
!
! dart-test: UNITS 1 UPN none
#include "dash/dart/if/dart_tables.h"

module ftest_constants_c
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    function ftestc_list_name(list, index) bind(C) result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: list, index
      type(c_ptr) :: p
    end function
    function ftestc_value(name, len, value) bind(C) result(found)
      import :: c_int, c_char, c_int64_t
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: len
      integer(c_int64_t), intent(out) :: value
      integer(c_int) :: found
    end function
    function ftestc_array_field(which, index, offset, size) bind(C) result(name)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: which, index
      integer(c_int64_t), intent(out) :: offset, size
      type(c_ptr) :: name
    end function
    function ftestc_type_info(type, size, integer) bind(C) result(found)
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: type
      integer(c_int64_t), intent(out) :: size
      integer(c_int), intent(out) :: integer
      integer(c_int) :: found
    end function
  end interface
end module ftest_constants_c

program ftest_constants
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use dart
  use dart_c_binding, only: c_dart_array_spec, c_dart_array_info, DART_ARRAY_BOUNDARY_NONE, &
                            DART_ARRAY_BOUNDARY_PERIODIC
  use ftest
  use ftest_constants_c
  implicit none
  integer, parameter :: LIST_TYPES = 1, LIST_OPS = 2, LIST_CODES = 3
  character(len=*), parameter :: list_label(3) = [character(len=16) :: &
    'basic types', 'operations', 'return codes']
  integer :: seen(3) = 0
  integer :: l, n

  call ftest_start('ftest_constants')

  ! -- the list entries, in list order ------------------------------------------------
  call ftest_section('lists of dart_tables.h')
#define FTEST_TYPE(n, ct, mt, ma, ii, np, fk, ft) call list_entry(LIST_TYPES, int(DART_TYPE_/**/n, int64));
#define FTEST_OP(n, mo, fl) call list_entry(LIST_OPS, int(DART_OP_/**/n, int64));
#define FTEST_CODE(n, v) call list_entry(LIST_CODES, int(DART_/**/n, int64));
  DART_BASIC_TYPE_LIST(FTEST_TYPE)
  DART_OPERATION_LIST(FTEST_OP)
  DART_RETURN_CODE_LIST(FTEST_CODE)
  ! Fortran expanded as many entries as C has.
  do l = 1, 3
    n = 0
    do while (c_associated(ftestc_list_name(l, n + 1)))
      n = n + 1
    end do
    call check(n == seen(l) .and. n > 0, trim(list_label(l)) // ': as many entries in C as in Fortran')
  end do

  ! -- the constants around the lists and the hand-written ones -----------------------
  call ftest_section('other constants')
  call named('DART_TYPE_UNDEFINED', int(DART_TYPE_UNDEFINED, int64))
  call named('DART_TYPE_LAST', int(DART_TYPE_LAST, int64))
  call named('DART_TYPE_SIZET', int(DART_TYPE_SIZET, int64))
  call named('DART_OP_UNDEFINED', int(DART_OP_UNDEFINED, int64))
  call named('DART_OP_LAST', int(DART_OP_LAST, int64))
  call named('DART_OP_MINMAX_MIN', int(DART_OP_MINMAX_MIN, int64))
  call named('DART_OP_MINMAX_MAX', int(DART_OP_MINMAX_MAX, int64))
  call named('DART_EXIT_SUCCESS', int(DART_EXIT_SUCCESS, int64))
  call named('DART_EXIT_ABORT', int(DART_EXIT_ABORT, int64))
  call named('DART_EXIT_ASSERT', int(DART_EXIT_ASSERT, int64))
  call named('DART_THREAD_SINGLE', int(DART_THREAD_SINGLE, int64))
  call named('DART_THREAD_MULTIPLE', int(DART_THREAD_MULTIPLE, int64))
  call named('DART_NOTIFY_SET', int(DART_NOTIFY_SET, int64))
  call named('DART_NOTIFY_ADD', int(DART_NOTIFY_ADD, int64))
  call named('DART_TEAM_ALL', int(DART_TEAM_ALL, int64))
  call named('DART_TEAM_NULL', int(DART_TEAM_NULL, int64))
  call named('DART_UNDEFINED_TEAM_ID', int(DART_UNDEFINED_TEAM_ID, int64))
  call named('DART_UNDEFINED_UNIT_ID', int(DART_UNDEFINED_UNIT_ID, int64))
  call named('DART_ARRAY_MAX_DIMS', int(DART_ARRAY_MAX_DIMS, int64))
  call named('DART_STENCIL_STAR', int(DART_STENCIL_STAR, int64))
  call named('DART_STENCIL_BOX', int(DART_STENCIL_BOX, int64))
  call named('DART_ARRAY_EXCHANGE_AUTO', int(DART_ARRAY_EXCHANGE_AUTO, int64))
  call named('DART_ARRAY_EXCHANGE_GET', int(DART_ARRAY_EXCHANGE_GET, int64))
  call named('DART_ARRAY_EXCHANGE_NOTIFY', int(DART_ARRAY_EXCHANGE_NOTIFY, int64))
  call named('DART_ARRAY_BOUNDARY_NONE', int(DART_ARRAY_BOUNDARY_NONE, int64))
  call named('DART_ARRAY_BOUNDARY_PERIODIC', int(DART_ARRAY_BOUNDARY_PERIODIC, int64))
  call named('DART_ARRAY_NORM_1', int(DART_ARRAY_NORM_1, int64))
  call named('DART_ARRAY_NORM_2', int(DART_ARRAY_NORM_2, int64))
  call named('DART_ARRAY_NORM_INF', int(DART_ARRAY_NORM_INF, int64))
  call check(DART_TYPE_LAST == seen(LIST_TYPES) + 1, 'DART_TYPE_LAST is one past the list')
  call check(DART_OP_LAST == seen(LIST_OPS) + 1, 'DART_OP_LAST is one past the list')

  ! -- the buffer types: element kind and size follow the list ------------------------
  call ftest_section('buffer types')
  block
    integer(int8) :: i1
    integer(int16) :: i2
    integer(int32) :: i4
    integer(int64) :: i8
    real(real32) :: r4
    real(real64) :: r8
    complex(real32) :: z4
    complex(real64) :: z8
    call buffer_type('integer(int8)', dart_datatype_of(i1), storage_size(i1), 1, .true.)
    call buffer_type('integer(int16)', dart_datatype_of(i2), storage_size(i2), 1, .true.)
    call buffer_type('integer(int32)', dart_datatype_of(i4), storage_size(i4), 1, .true.)
    call buffer_type('integer(int64)', dart_datatype_of(i8), storage_size(i8), 1, .true.)
    call buffer_type('real(real32)', dart_datatype_of(r4), storage_size(r4), 1, .false.)
    call buffer_type('real(real64)', dart_datatype_of(r8), storage_size(r8), 1, .false.)
    call buffer_type('complex(real32)', dart_datatype_of(z4), storage_size(z4), 2, .false.)
    call buffer_type('complex(real64)', dart_datatype_of(z8), storage_size(z8), 2, .false.)
  end block

  ! -- the bind(C) mirrors of the structs of dart_array.h: every field where C has it -----
  call ftest_section('dart_array.h structs')
  block
    type(c_dart_array_spec), target :: sp
    type(c_dart_array_info), target :: in
    integer(c_intptr_t) :: b
    b = loc_of(c_loc(sp))
    call struct_fields(1, 'dart_array_spec_t', int(c_sizeof(sp), int64), [character(len=16) :: &
      'dtype', 'blocks', 'shape', 'ndim', 'components', 'procs', 'halo_lo', 'halo_hi', &
      'boundary', 'stencil', 'exchange', 'team'], [ &
      loc_of(c_loc(sp%dtype)) - b, loc_of(c_loc(sp%blocks)) - b, loc_of(c_loc(sp%shape)) - b, &
      loc_of(c_loc(sp%ndim)) - b, loc_of(c_loc(sp%components)) - b, &
      loc_of(c_loc(sp%procs)) - b, loc_of(c_loc(sp%halo_lo)) - b, &
      loc_of(c_loc(sp%halo_hi)) - b, loc_of(c_loc(sp%boundary)) - b, &
      loc_of(c_loc(sp%stencil)) - b, loc_of(c_loc(sp%exchange)) - b, &
      loc_of(c_loc(sp%team)) - b], [ &
      c_sizeof(sp%dtype), c_sizeof(sp%blocks), c_sizeof(sp%shape), c_sizeof(sp%ndim), &
      c_sizeof(sp%components), c_sizeof(sp%procs), c_sizeof(sp%halo_lo), &
      c_sizeof(sp%halo_hi), c_sizeof(sp%boundary), c_sizeof(sp%stencil), &
      c_sizeof(sp%exchange), c_sizeof(sp%team)])
    b = loc_of(c_loc(in))
    call struct_fields(2, 'dart_array_info_t', int(c_sizeof(in), int64), [character(len=16) :: &
      'dtype', 'gptr', 'local', 'shape', 'lo', 'hi', 'local_shape', 'ndim', 'components', &
      'procs', 'coords', 'halo_lo', 'halo_hi', 'boundary', 'stencil', 'exchange', 'myid', &
      'nunits', 'team'], [ &
      loc_of(c_loc(in%dtype)) - b, loc_of(c_loc(in%gptr)) - b, loc_of(c_loc(in%local)) - b, &
      loc_of(c_loc(in%shape)) - b, loc_of(c_loc(in%lo)) - b, loc_of(c_loc(in%hi)) - b, &
      loc_of(c_loc(in%local_shape)) - b, loc_of(c_loc(in%ndim)) - b, &
      loc_of(c_loc(in%components)) - b, loc_of(c_loc(in%procs)) - b, &
      loc_of(c_loc(in%coords)) - b, loc_of(c_loc(in%halo_lo)) - b, &
      loc_of(c_loc(in%halo_hi)) - b, loc_of(c_loc(in%boundary)) - b, &
      loc_of(c_loc(in%stencil)) - b, loc_of(c_loc(in%exchange)) - b, &
      loc_of(c_loc(in%myid)) - b, loc_of(c_loc(in%nunits)) - b, loc_of(c_loc(in%team)) - b], [ &
      c_sizeof(in%dtype), c_sizeof(in%gptr), c_sizeof(in%local), c_sizeof(in%shape), &
      c_sizeof(in%lo), c_sizeof(in%hi), c_sizeof(in%local_shape), c_sizeof(in%ndim), &
      c_sizeof(in%components), c_sizeof(in%procs), c_sizeof(in%coords), &
      c_sizeof(in%halo_lo), c_sizeof(in%halo_hi), c_sizeof(in%boundary), &
      c_sizeof(in%stencil), c_sizeof(in%exchange), c_sizeof(in%myid), &
      c_sizeof(in%nunits), c_sizeof(in%team)])
  end block

  call ftest_finish()

contains

  integer(c_intptr_t) function loc_of(p)
    type(c_ptr), intent(in) :: p
    loc_of = transfer(p, 0_c_intptr_t)
  end function loc_of

  !> The Fortran mirror of C struct `which` has C's size and, field by field in C's
  !> order, the same names, offsets and sizes.
  subroutine struct_fields(which, sname, fsize, names, offsets, sizes)
    integer, intent(in) :: which
    character(len=*), intent(in) :: sname, names(:)
    integer(int64), intent(in) :: fsize
    integer(c_intptr_t), intent(in) :: offsets(:)
    integer(c_size_t), intent(in) :: sizes(:)
    integer(c_int64_t) :: coff, csize
    character(len=:), allocatable :: cname
    character(len=96) :: line
    integer :: i
    cname = c_string(ftestc_array_field(int(which, c_int), 0_c_int, coff, csize))
    write(line, '(a,i0,a,i0)') ': size, Fortran ', fsize, ', C ', csize
    call check(cname == sname .and. fsize == csize, sname // trim(line))
    do i = 1, size(names)
      cname = c_string(ftestc_array_field(int(which, c_int), int(i, c_int), coff, csize))
      write(line, '(a,i0,a,i0,a,i0,a,i0)') ': offset ', offsets(i), ' size ', sizes(i), &
        ', C: offset ', coff, ' size ', csize
      call check(cname == trim(names(i)) .and. offsets(i) == coff .and. sizes(i) == csize, &
                 sname // '%' // trim(names(i)) // ' (C: ' // cname // ')' // trim(line))
    end do
    cname = c_string(ftestc_array_field(int(which, c_int), int(size(names) + 1, c_int), &
                                        coff, csize))
    call check(len(cname) == 0, sname // ': C has more fields than the Fortran mirror: ' // cname)
  end subroutine struct_fields

  !> The next entry of list l, with Fortran value fvalue: its name and value in C.
  subroutine list_entry(l, fvalue)
    integer, intent(in) :: l
    integer(int64), intent(in) :: fvalue
    character(len=:), allocatable :: name
    character(len=24) :: where
    seen(l) = seen(l) + 1
    name = c_string(ftestc_list_name(l, seen(l)))
    write(where, '(a,i0)') ' entry ', seen(l)
    if (len(name) == 0) then
      call check(.false., trim(list_label(l)) // trim(where) // ': none in C')
      return
    end if
    call named(name, fvalue)
  end subroutine list_entry

  !> The Fortran constant `name` has the C value.
  subroutine named(name, fvalue)
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: fvalue
    integer(c_int64_t) :: cvalue
    character(len=64) :: values
    if (ftestc_value(name, len(name, c_int), cvalue) == 0) then
      call check(.false., name // ': unknown to ftest_constants_c.c')
      return
    end if
    write(values, '(a,i0,a,i0)') 'Fortran ', fvalue, ', C ', cvalue
    call check(fvalue == cvalue, name // ': ' // trim(values))
  end subroutine named

  !> A buffer type's DART datatype is a basic type whose C type has the element's size
  !> (per part) and kind of number.
  subroutine buffer_type(label, t, bits, parts, is_integer)
    character(len=*), intent(in) :: label
    integer(DART_DATATYPE_KIND), intent(in) :: t
    integer, intent(in) :: bits, parts
    logical, intent(in) :: is_integer
    integer(c_int64_t) :: csize
    integer(c_int) :: cint
    character(len=64) :: sizes
    if (ftestc_type_info(int(t, c_int64_t), csize, cint) == 0) then
      call check(.false., label // ': dart_datatype_of is no basic type')
      return
    end if
    write(sizes, '(a,i0,a,i0,a)') 'Fortran ', bits / 8 / parts, ' bytes, C ', csize, ' bytes'
    call check(bits / 8 / parts == csize, label // ': element size, ' // trim(sizes))
    call check((cint /= 0) .eqv. is_integer, label // ': integer or not as in the list')
  end subroutine buffer_type

  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    s = ''
    if (.not. c_associated(p)) return
    call c_f_pointer(p, chars, [256])
    n = 0
    do while (chars(n + 1) /= c_null_char)
      n = n + 1
      s = s // chars(n)
    end do
  end function c_string

end program ftest_constants
