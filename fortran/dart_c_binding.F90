! SPDX-License-Identifier: BSD-3-Clause
! dart_c_binding: raw bind(C) interfaces to the DART C API (dart.h, with dart_ext.h,
! dart_notify.h and dart_array.h) and to the small C helpers of the Fortran library
! (dart_f_shim.c), plus the interoperable types and named constants that the public
! module `dart` re-exports.
!
! Private to the Fortran library: programs `use dart`, never this module. Every C function
! is bound under its C name with a `c_` prefix (c_dart_put ...), so that the public module
! can give the Fortran wrapper the C name itself. Nothing here touches the core's
! internals: only symbols of the installed headers are bound.
module dart_c_binding
  use, intrinsic :: iso_c_binding
  implicit none
  private

  ! ---------------------------------------------------------------------------------------
  ! Kinds of the C typedefs
  ! ---------------------------------------------------------------------------------------
  !> Kind of a team id (dart_team_t, int16_t).
  integer, parameter, public :: DART_TEAM_KIND = c_int16_t
  !> Kind of a datatype handle (dart_datatype_t, intptr_t).
  integer, parameter, public :: DART_DATATYPE_KIND = c_intptr_t
  !> Kind of an operation handle (dart_operation_t, intptr_t).
  integer, parameter, public :: DART_OPERATION_KIND = c_intptr_t
  !> Kind of a unit id (dart_unit_t, int32_t; the default integer with gfortran).
  integer, parameter, public :: DART_UNIT_KIND = c_int32_t

  ! ---------------------------------------------------------------------------------------
  ! Interoperable types
  ! ---------------------------------------------------------------------------------------
  !> Global pointer, byte for byte a dart_gptr_t (16 bytes). The components are private:
  !> use the accessors dart_gptr_unit/_segid/_teamid/_flags/_offset and the setters.
  !> The first word holds the 24-bit unit id and the 8-bit flags as the C bitfields lay
  !> them out; it is only ever read or written through dart_gptr_fields/dart_gptr_make.
  type, bind(C), public :: dart_gptr
    private
    integer(c_int32_t) :: unit_flags = int(z'00FFFFFF', c_int32_t)  ! unit -1, flags 0
    integer(c_int16_t) :: segid = 0_c_int16_t
    integer(c_int16_t) :: teamid = -1_c_int16_t                     ! DART_TEAM_NULL
    integer(c_int64_t) :: offset = 0_c_int64_t
  end type dart_gptr

  !> Handle of a non-blocking transfer (dart_handle_t).
  type, bind(C), public :: dart_handle
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type dart_handle

  !> Group handle (dart_group_t).
  type, bind(C), public :: dart_group
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type dart_group

  !> Team lock handle (dart_lock_t).
  type, bind(C), public :: dart_lock
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type dart_lock

  !> A distributed array (dart_array_t, dart_array.h): one c_ptr; DART_ARRAY_NULL is none.
  type, bind(C), public :: dart_array
    private
    type(c_ptr) :: ptr = c_null_ptr
  end type dart_array

  type(dart_gptr), parameter, public :: DART_GPTR_NULL = &
    dart_gptr(int(z'00FFFFFF', c_int32_t), 0_c_int16_t, -1_c_int16_t, 0_c_int64_t)
  type(dart_handle), parameter, public :: DART_HANDLE_NULL = dart_handle(c_null_ptr)
  type(dart_group), parameter, public :: DART_GROUP_NULL = dart_group(c_null_ptr)
  type(dart_lock), parameter, public :: DART_LOCK_NULL = dart_lock(c_null_ptr)
  type(dart_array), parameter, public :: DART_ARRAY_NULL = dart_array(c_null_ptr)

  ! ---------------------------------------------------------------------------------------
  ! Named constants (values of dart_types.h and friends)
  ! ---------------------------------------------------------------------------------------
  ! Return codes, basic datatypes, operations and the kinds of the basic types: generated
  ! at build time from the X-macro lists of dart_tables.h (cmake/DartTables.cmake).
#include "dart_tables.inc"

  ! Exit codes.
  integer, parameter, public :: DART_EXIT_SUCCESS = 0
  integer, parameter, public :: DART_EXIT_ABORT = 1
  integer, parameter, public :: DART_EXIT_ASSERT = -6

  ! Thread support levels (dart_thread_support_level_t).
  integer, parameter, public :: DART_THREAD_SINGLE = 0
  integer, parameter, public :: DART_THREAD_MULTIPLE = 10

  ! Teams and units.
  integer(DART_TEAM_KIND), parameter, public :: DART_TEAM_ALL = 0_DART_TEAM_KIND
  integer(DART_TEAM_KIND), parameter, public :: DART_TEAM_NULL = -1_DART_TEAM_KIND
  integer(DART_TEAM_KIND), parameter, public :: DART_UNDEFINED_TEAM_ID = -1_DART_TEAM_KIND
  integer(DART_UNIT_KIND), parameter, public :: DART_UNDEFINED_UNIT_ID = -1_DART_UNIT_KIND
  integer(c_int16_t), parameter, public :: DART_SEGMENT_LOCAL = 0_c_int16_t

  !> The basic type of size_t (as dart_types.h: unsigned long if size_t has 32 bits,
  !> unsigned long long if it has 64).
  integer(DART_DATATYPE_KIND), parameter, public :: DART_TYPE_SIZET = &
    merge(DART_TYPE_ULONG, DART_TYPE_ULONGLONG, bit_size(0_c_size_t) == 32)

  !> Index of the minimum / maximum inside a DART_OP_MINMAX pair, 0-based as in C: in a
  !> Fortran array with lower bound 1 the minimum of pair i is x(2*i-1), the maximum x(2*i).
  integer, parameter, public :: DART_OP_MINMAX_MIN = 0
  integer, parameter, public :: DART_OP_MINMAX_MAX = 1

  ! ---------------------------------------------------------------------------------------
  ! The structs of dart_array.h, field for field (C order of dimensions: the library's
  ! wrappers reverse them). Private to the library; ftest_constants checks their sizes
  ! and offsets against C.
  ! ---------------------------------------------------------------------------------------
  !> dart_array_spec_t (fill it with dart_array_spec_init first).
  type, bind(C), public :: c_dart_array_spec
    integer(c_intptr_t) :: dtype = 0
    type(c_ptr) :: blocks = c_null_ptr
    integer(c_int64_t) :: shape(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: ndim = 0
    integer(c_int32_t) :: components = 1
    integer(c_int32_t) :: procs(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: halo_lo(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: halo_hi(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: boundary(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: stencil = 0
    integer(c_int32_t) :: exchange = 0
    integer(c_int16_t) :: team = 0
    type(c_ptr) :: refusal = c_null_ptr
  end type c_dart_array_spec

  !> dart_array_info_t.
  type, bind(C), public :: c_dart_array_info
    integer(c_intptr_t) :: dtype = 0
    type(dart_gptr) :: gptr
    type(c_ptr) :: local = c_null_ptr
    integer(c_int64_t) :: shape(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int64_t) :: lo(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int64_t) :: hi(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int64_t) :: local_shape(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: ndim = 0
    integer(c_int32_t) :: components = 0
    integer(c_int32_t) :: procs(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: coords(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: halo_lo(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: halo_hi(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: boundary(DART_ARRAY_MAX_DIMS) = 0
    integer(c_int32_t) :: stencil = 0
    integer(c_int32_t) :: exchange = 0
    integer(c_int32_t) :: myid = 0
    integer(c_int32_t) :: nunits = 0
    integer(c_int16_t) :: team = 0
  end type c_dart_array_info

  ! ---------------------------------------------------------------------------------------
  ! Raw interfaces
  ! ---------------------------------------------------------------------------------------
  public :: c_dart_init, c_dart_init_thread, c_dart_exit, c_dart_initialized, c_dart_abort
  public :: c_dart_myid, c_dart_size
  public :: c_dart_group_create, c_dart_group_destroy, c_dart_group_clone, c_dart_group_union
  public :: c_dart_group_intersect, c_dart_group_addmember, c_dart_group_delmember
  public :: c_dart_group_ismember, c_dart_group_size, c_dart_group_getmembers
  public :: c_dart_group_split
  public :: c_dart_team_get_group, c_dart_team_create, c_dart_team_destroy, c_dart_team_clone
  public :: c_dart_team_myid, c_dart_team_size, c_dart_team_unit_l2g, c_dart_team_unit_g2l
  public :: c_dart_gptr_getaddr, c_dart_gptr_setaddr, c_dart_gptr_getflags
  public :: c_dart_gptr_setflags
  public :: c_dart_memalloc, c_dart_memfree, c_dart_team_memalloc_aligned, c_dart_team_memfree
  public :: c_dart_team_memregister_aligned, c_dart_team_memregister
  public :: c_dart_team_memderegister
  public :: c_dart_barrier, c_dart_bcast, c_dart_scatter, c_dart_gather, c_dart_allgather
  public :: c_dart_allgatherv, c_dart_allreduce, c_dart_reduce, c_dart_alltoall
  public :: c_dart_accumulate, c_dart_accumulate_blocking_local, c_dart_fetch_and_op
  public :: c_dart_compare_and_swap
  public :: c_dart_get, c_dart_put, c_dart_flush, c_dart_flush_all, c_dart_flush_local
  public :: c_dart_flush_local_all
  public :: c_dart_get_handle, c_dart_put_handle, c_dart_wait, c_dart_waitall
  public :: c_dart_wait_local, c_dart_waitall_local, c_dart_test_local, c_dart_test
  public :: c_dart_testall_local, c_dart_testall, c_dart_handle_free
  public :: c_dart_get_blocking, c_dart_put_blocking
  public :: c_dart_put_notify, c_dart_put_notify_handle, c_dart_notify, c_dart_notify_wait
  public :: c_dart_notify_test, c_dart_notify_get, c_dart_notify_alloc, c_dart_notify_free
  public :: c_dart_send, c_dart_recv, c_dart_sendrecv
  public :: c_dart_team_lock_init, c_dart_team_lock_destroy, c_dart_lock_acquire
  public :: c_dart_lock_try_acquire, c_dart_lock_release, c_dart_lock_initialized
  public :: c_dart_type_create_strided, c_dart_type_create_indexed, c_dart_type_create_custom
  public :: c_dart_type_destroy, c_dart_op_create, c_dart_op_destroy
  public :: c_dart_strerror, c_dart_error_detail, c_dart_gptr_fields, c_dart_gptr_make
  public :: c_dart_gptr_getaddr_node, c_dart_gptr_segment_size, c_dart_node_count
  public :: c_dart_unit_node, c_dart_units_per_node_emulation, c_dart_config_string
  public :: c_dart_mpi_version, c_dart_mpi_quirks
  public :: c_dart_type_from_layout, c_dart_type_layout_release
  public :: c_dart_type_layout_cache_stats
  public :: c_dart_array_spec_init, c_dart_array_dims_create, c_dart_array_create
  public :: c_dart_array_destroy
  public :: c_dart_array_copy, c_dart_array_get_info, c_dart_array_block, c_dart_array_owner
  public :: c_dart_array_update_halo, c_dart_array_update_halo_begin
  public :: c_dart_array_update_halo_end, c_dart_array_get, c_dart_array_put
  public :: c_dart_array_gather, c_dart_array_scatter
  public :: c_dart_array_save, c_dart_array_load, c_dart_array_file_info
  public :: c_dart_array_reduce, c_dart_array_reduce_type, c_dart_array_norm, c_dart_array_dot
  public :: c_dartf_team_comm, c_dartf_team_create_from_comm, c_dartf_descriptor

  ! Handle components are private in the public module's view; the wrappers reach the
  ! pointer inside through these (pure, inlined by the compiler).
  public :: dartf_group_ptr, dartf_lock_ptr, dartf_lock_from, dartf_handle_ptr
  public :: dartf_array_ptr
  ! The plain (non-bitfield) components of a gptr: segid, teamid, offset.
  public :: dartf_gptr_segid, dartf_gptr_teamid, dartf_gptr_offset, dartf_gptr_add_offset

  interface
    ! ---- initialization (dart_initialization.h) --------------------------------------
    function c_dart_init(argc, argv) bind(C, name="dart_init") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: argc, argv
      integer(c_int) :: rc
    end function
    function c_dart_init_thread(argc, argv, thread_safety) bind(C, name="dart_init_thread") &
        result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: argc, argv
      integer(c_int), intent(inout) :: thread_safety
      integer(c_int) :: rc
    end function
    function c_dart_exit() bind(C, name="dart_exit") result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function
    function c_dart_initialized() bind(C, name="dart_initialized") result(r)
      import :: c_bool
      logical(c_bool) :: r
    end function
    subroutine c_dart_abort(errorcode) bind(C, name="dart_abort")
      import :: c_int
      integer(c_int), value :: errorcode
    end subroutine

    ! ---- groups and teams (dart_team_group.h) ----------------------------------------
    function c_dart_group_create(group) bind(C, name="dart_group_create") result(rc)
      import :: c_int, dart_group
      type(dart_group), intent(inout) :: group
      integer(c_int) :: rc
    end function
    function c_dart_group_destroy(group) bind(C, name="dart_group_destroy") result(rc)
      import :: c_int, dart_group
      type(dart_group), intent(inout) :: group
      integer(c_int) :: rc
    end function
    function c_dart_group_clone(gin, gout) bind(C, name="dart_group_clone") result(rc)
      import :: c_int, c_ptr, dart_group
      type(c_ptr), value :: gin
      type(dart_group), intent(inout) :: gout
      integer(c_int) :: rc
    end function
    function c_dart_group_union(g1, g2, gout) bind(C, name="dart_group_union") result(rc)
      import :: c_int, c_ptr, dart_group
      type(c_ptr), value :: g1, g2
      type(dart_group), intent(inout) :: gout
      integer(c_int) :: rc
    end function
    function c_dart_group_intersect(g1, g2, gout) bind(C, name="dart_group_intersect") &
        result(rc)
      import :: c_int, c_ptr, dart_group
      type(c_ptr), value :: g1, g2
      type(dart_group), intent(inout) :: gout
      integer(c_int) :: rc
    end function
    function c_dart_group_addmember(g, unitid) bind(C, name="dart_group_addmember") result(rc)
      import :: c_int, c_ptr, c_int32_t
      type(c_ptr), value :: g
      integer(c_int32_t), value :: unitid
      integer(c_int) :: rc
    end function
    function c_dart_group_delmember(g, unitid) bind(C, name="dart_group_delmember") result(rc)
      import :: c_int, c_ptr, c_int32_t
      type(c_ptr), value :: g
      integer(c_int32_t), value :: unitid
      integer(c_int) :: rc
    end function
    function c_dart_group_ismember(g, unitid, ismember) bind(C, name="dart_group_ismember") &
        result(rc)
      import :: c_int, c_ptr, c_int32_t
      type(c_ptr), value :: g
      integer(c_int32_t), value :: unitid
      integer(c_int32_t), intent(inout) :: ismember
      integer(c_int) :: rc
    end function
    function c_dart_group_size(g, size) bind(C, name="dart_group_size") result(rc)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: g
      integer(c_size_t), intent(inout) :: size
      integer(c_int) :: rc
    end function
    function c_dart_group_getmembers(g, unitids) bind(C, name="dart_group_getmembers") &
        result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: g
      type(c_ptr), value :: unitids
      integer(c_int) :: rc
    end function
    function c_dart_group_split(g, n, nout, gout) bind(C, name="dart_group_split") result(rc)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: g
      integer(c_size_t), value :: n
      integer(c_size_t), intent(inout) :: nout
      type(c_ptr), value :: gout
      integer(c_int) :: rc
    end function
    function c_dart_team_get_group(teamid, group) bind(C, name="dart_team_get_group") &
        result(rc)
      import :: c_int, c_int16_t, dart_group
      integer(c_int16_t), value :: teamid
      type(dart_group), intent(inout) :: group
      integer(c_int) :: rc
    end function
    function c_dart_team_create(teamid, group, newteam) bind(C, name="dart_team_create") &
        result(rc)
      import :: c_int, c_int16_t, c_ptr
      integer(c_int16_t), value :: teamid
      type(c_ptr), value :: group
      integer(c_int16_t), intent(inout) :: newteam
      integer(c_int) :: rc
    end function
    function c_dart_team_destroy(teamid) bind(C, name="dart_team_destroy") result(rc)
      import :: c_int, c_int16_t
      integer(c_int16_t), intent(inout) :: teamid
      integer(c_int) :: rc
    end function
    function c_dart_team_clone(team, newteam) bind(C, name="dart_team_clone") result(rc)
      import :: c_int, c_int16_t
      integer(c_int16_t), value :: team
      integer(c_int16_t), intent(inout) :: newteam
      integer(c_int) :: rc
    end function
    function c_dart_team_myid(teamid, myid) bind(C, name="dart_team_myid") result(rc)
      import :: c_int, c_int16_t, c_int32_t
      integer(c_int16_t), value :: teamid
      integer(c_int32_t), intent(inout) :: myid
      integer(c_int) :: rc
    end function
    function c_dart_team_size(teamid, size) bind(C, name="dart_team_size") result(rc)
      import :: c_int, c_int16_t, c_size_t
      integer(c_int16_t), value :: teamid
      integer(c_size_t), intent(inout) :: size
      integer(c_int) :: rc
    end function
    function c_dart_myid(myid) bind(C, name="dart_myid") result(rc)
      import :: c_int, c_int32_t
      integer(c_int32_t), intent(inout) :: myid
      integer(c_int) :: rc
    end function
    function c_dart_size(size) bind(C, name="dart_size") result(rc)
      import :: c_int, c_size_t
      integer(c_size_t), intent(inout) :: size
      integer(c_int) :: rc
    end function
    function c_dart_team_unit_l2g(team, localid, globalid) bind(C, name="dart_team_unit_l2g") &
        result(rc)
      import :: c_int, c_int16_t, c_int32_t
      integer(c_int16_t), value :: team
      integer(c_int32_t), value :: localid
      integer(c_int32_t), intent(inout) :: globalid
      integer(c_int) :: rc
    end function
    function c_dart_team_unit_g2l(team, globalid, localid) bind(C, name="dart_team_unit_g2l") &
        result(rc)
      import :: c_int, c_int16_t, c_int32_t
      integer(c_int16_t), value :: team
      integer(c_int32_t), value :: globalid
      integer(c_int32_t), intent(inout) :: localid
      integer(c_int) :: rc
    end function

    ! ---- global memory (dart_globmem.h) ----------------------------------------------
    function c_dart_gptr_getaddr(gptr, addr) bind(C, name="dart_gptr_getaddr") result(rc)
      import :: c_int, c_ptr, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), intent(inout) :: addr
      integer(c_int) :: rc
    end function
    function c_dart_gptr_setaddr(gptr, addr) bind(C, name="dart_gptr_setaddr") result(rc)
      import :: c_int, c_ptr, dart_gptr
      type(dart_gptr), intent(inout) :: gptr
      type(c_ptr), value :: addr
      integer(c_int) :: rc
    end function
    function c_dart_gptr_getflags(gptr, flags) bind(C, name="dart_gptr_getflags") result(rc)
      import :: c_int, c_int16_t, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int16_t), intent(inout) :: flags
      integer(c_int) :: rc
    end function
    function c_dart_gptr_setflags(gptr, flags) bind(C, name="dart_gptr_setflags") result(rc)
      import :: c_int, c_int16_t, dart_gptr
      type(dart_gptr), intent(inout) :: gptr
      integer(c_int16_t), value :: flags
      integer(c_int) :: rc
    end function
    function c_dart_memalloc(nelem, dtype, gptr) bind(C, name="dart_memalloc") result(rc)
      import :: c_int, c_size_t, c_intptr_t, dart_gptr
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      type(dart_gptr), intent(inout) :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_memfree(gptr) bind(C, name="dart_memfree") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_team_memalloc_aligned(teamid, nelem, dtype, gptr) &
        bind(C, name="dart_team_memalloc_aligned") result(rc)
      import :: c_int, c_int16_t, c_size_t, c_intptr_t, dart_gptr
      integer(c_int16_t), value :: teamid
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      type(dart_gptr), intent(inout) :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_team_memfree(gptr) bind(C, name="dart_team_memfree") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_team_memregister_aligned(teamid, nelem, dtype, addr, gptr) &
        bind(C, name="dart_team_memregister_aligned") result(rc)
      import :: c_int, c_int16_t, c_size_t, c_intptr_t, c_ptr, dart_gptr
      integer(c_int16_t), value :: teamid
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      type(c_ptr), value :: addr
      type(dart_gptr), intent(inout) :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_team_memregister(teamid, nlelem, dtype, addr, gptr) &
        bind(C, name="dart_team_memregister") result(rc)
      import :: c_int, c_int16_t, c_size_t, c_intptr_t, c_ptr, dart_gptr
      integer(c_int16_t), value :: teamid
      integer(c_size_t), value :: nlelem
      integer(c_intptr_t), value :: dtype
      type(c_ptr), value :: addr
      type(dart_gptr), intent(inout) :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_team_memderegister(gptr) bind(C, name="dart_team_memderegister") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function

    ! ---- collectives and two-sided (dart_communication.h) ----------------------------
    function c_dart_barrier(team) bind(C, name="dart_barrier") result(rc)
      import :: c_int, c_int16_t
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_bcast(buf, nelem, dtype, root, team) bind(C, name="dart_bcast") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t, c_int16_t
      type(c_ptr), value :: buf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int32_t), value :: root
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_scatter(sendbuf, recvbuf, nelem, dtype, root, team) &
        bind(C, name="dart_scatter") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t, c_int16_t
      type(c_ptr), value :: sendbuf, recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int32_t), value :: root
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_gather(sendbuf, recvbuf, nelem, dtype, root, team) &
        bind(C, name="dart_gather") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t, c_int16_t
      type(c_ptr), value :: sendbuf, recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int32_t), value :: root
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_allgather(sendbuf, recvbuf, nelem, dtype, team) &
        bind(C, name="dart_allgather") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int16_t
      type(c_ptr), value :: sendbuf, recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_allgatherv(sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls, &
        teamid) bind(C, name="dart_allgatherv") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int16_t
      type(c_ptr), value :: sendbuf
      integer(c_size_t), value :: nsendelem
      integer(c_intptr_t), value :: dtype
      type(c_ptr), value :: recvbuf
      type(c_ptr), value :: nrecvelem, recvdispls
      integer(c_int16_t), value :: teamid
      integer(c_int) :: rc
    end function
    function c_dart_allreduce(sendbuf, recvbuf, nelem, dtype, op, team) &
        bind(C, name="dart_allreduce") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int16_t
      type(c_ptr), value :: sendbuf, recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype, op
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_reduce(sendbuf, recvbuf, nelem, dtype, op, root, team) &
        bind(C, name="dart_reduce") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t, c_int16_t
      type(c_ptr), value :: sendbuf, recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype, op
      integer(c_int32_t), value :: root
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_alltoall(sendbuf, recvbuf, nelem, dtype, team) &
        bind(C, name="dart_alltoall") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int16_t
      type(c_ptr), value :: sendbuf, recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int16_t), value :: team
      integer(c_int) :: rc
    end function
    function c_dart_send(sendbuf, nelem, dtype, tag, unit) bind(C, name="dart_send") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t
      type(c_ptr), value :: sendbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int), value :: tag
      integer(c_int32_t), value :: unit
      integer(c_int) :: rc
    end function
    function c_dart_recv(recvbuf, nelem, dtype, tag, unit) bind(C, name="dart_recv") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t
      type(c_ptr), value :: recvbuf
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype
      integer(c_int), value :: tag
      integer(c_int32_t), value :: unit
      integer(c_int) :: rc
    end function
    function c_dart_sendrecv(sendbuf, send_nelem, send_dtype, send_tag, dest, recvbuf, &
        recv_nelem, recv_dtype, recv_tag, src) bind(C, name="dart_sendrecv") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int32_t
      type(c_ptr), value :: sendbuf
      integer(c_size_t), value :: send_nelem
      integer(c_intptr_t), value :: send_dtype
      integer(c_int), value :: send_tag
      integer(c_int32_t), value :: dest
      type(c_ptr), value :: recvbuf
      integer(c_size_t), value :: recv_nelem
      integer(c_intptr_t), value :: recv_dtype
      integer(c_int), value :: recv_tag
      integer(c_int32_t), value :: src
      integer(c_int) :: rc
    end function

    ! ---- atomics -------------------------------------------------------------------
    function c_dart_accumulate(gptr, values, nelem, dtype, op) bind(C, name="dart_accumulate") &
        result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: values
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype, op
      integer(c_int) :: rc
    end function
    function c_dart_accumulate_blocking_local(gptr, values, nelem, dtype, op) &
        bind(C, name="dart_accumulate_blocking_local") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: values
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: dtype, op
      integer(c_int) :: rc
    end function
    function c_dart_fetch_and_op(gptr, value, result, dtype, op) &
        bind(C, name="dart_fetch_and_op") result(rc)
      import :: c_int, c_ptr, c_intptr_t, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: value, result
      integer(c_intptr_t), value :: dtype, op
      integer(c_int) :: rc
    end function
    function c_dart_compare_and_swap(gptr, value, compare, result, dtype) &
        bind(C, name="dart_compare_and_swap") result(rc)
      import :: c_int, c_ptr, c_intptr_t, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: value, compare, result
      integer(c_intptr_t), value :: dtype
      integer(c_int) :: rc
    end function

    ! ---- one-sided -----------------------------------------------------------------
    function c_dart_get(dest, gptr, nelem, src_type, dst_type) bind(C, name="dart_get") &
        result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr
      type(c_ptr), value :: dest
      type(dart_gptr), value :: gptr
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      integer(c_int) :: rc
    end function
    function c_dart_put(gptr, src, nelem, src_type, dst_type) bind(C, name="dart_put") &
        result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: src
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      integer(c_int) :: rc
    end function
    function c_dart_flush(gptr) bind(C, name="dart_flush") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_flush_all(gptr) bind(C, name="dart_flush_all") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_flush_local(gptr) bind(C, name="dart_flush_local") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_flush_local_all(gptr) bind(C, name="dart_flush_local_all") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_get_handle(dest, gptr, nelem, src_type, dst_type, handle) &
        bind(C, name="dart_get_handle") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr, dart_handle
      type(c_ptr), value :: dest
      type(dart_gptr), value :: gptr
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      type(dart_handle), intent(inout) :: handle
      integer(c_int) :: rc
    end function
    function c_dart_put_handle(gptr, src, nelem, src_type, dst_type, handle) &
        bind(C, name="dart_put_handle") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr, dart_handle
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: src
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      type(dart_handle), intent(inout) :: handle
      integer(c_int) :: rc
    end function
    ! notified access (dart_notify.h); dart_notify_op_t is a C enum (c_int), the
    ! uint64_t counter values are c_int64_t (the same bits)
    function c_dart_put_notify(gptr, src, nelem, src_type, dst_type, counter, value, op) &
        bind(C, name="dart_put_notify") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int64_t, dart_gptr
      type(dart_gptr), value :: gptr, counter
      type(c_ptr), value :: src
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      integer(c_int64_t), value :: value
      integer(c_int), value :: op
      integer(c_int) :: rc
    end function
    function c_dart_put_notify_handle(gptr, src, nelem, src_type, dst_type, counter, value, &
                                      op, handle) bind(C, name="dart_put_notify_handle") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, c_int64_t, dart_gptr, dart_handle
      type(dart_gptr), value :: gptr, counter
      type(c_ptr), value :: src
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      integer(c_int64_t), value :: value
      integer(c_int), value :: op
      type(dart_handle), intent(inout) :: handle
      integer(c_int) :: rc
    end function
    function c_dart_notify(counter, value, op) bind(C, name="dart_notify") result(rc)
      import :: c_int, c_int64_t, dart_gptr
      type(dart_gptr), value :: counter
      integer(c_int64_t), value :: value
      integer(c_int), value :: op
      integer(c_int) :: rc
    end function
    function c_dart_notify_wait(counter, until_count) bind(C, name="dart_notify_wait") result(rc)
      import :: c_int, c_int64_t, dart_gptr
      type(dart_gptr), value :: counter
      integer(c_int64_t), value :: until_count
      integer(c_int) :: rc
    end function
    function c_dart_notify_test(counter, until_count, flag) &
        bind(C, name="dart_notify_test") result(rc)
      import :: c_int, c_int32_t, c_int64_t, dart_gptr
      type(dart_gptr), value :: counter
      integer(c_int64_t), value :: until_count
      integer(c_int32_t), intent(out) :: flag
      integer(c_int) :: rc
    end function
    function c_dart_notify_get(counter, value) bind(C, name="dart_notify_get") result(rc)
      import :: c_int, c_int64_t, dart_gptr
      type(dart_gptr), value :: counter
      integer(c_int64_t), intent(out) :: value
      integer(c_int) :: rc
    end function
    function c_dart_notify_alloc(team, n, base) bind(C, name="dart_notify_alloc") result(rc)
      import :: c_int, c_size_t, c_int16_t, dart_gptr
      integer(c_int16_t), value :: team
      integer(c_size_t), value :: n
      type(dart_gptr), intent(inout) :: base
      integer(c_int) :: rc
    end function
    function c_dart_notify_free(base) bind(C, name="dart_notify_free") result(rc)
      import :: c_int, dart_gptr
      type(dart_gptr), value :: base
      integer(c_int) :: rc
    end function
    function c_dart_wait(handle) bind(C, name="dart_wait") result(rc)
      import :: c_int, dart_handle
      type(dart_handle), intent(inout) :: handle
      integer(c_int) :: rc
    end function
    function c_dart_waitall(handles, n) bind(C, name="dart_waitall") result(rc)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: handles
      integer(c_size_t), value :: n
      integer(c_int) :: rc
    end function
    function c_dart_wait_local(handle) bind(C, name="dart_wait_local") result(rc)
      import :: c_int, dart_handle
      type(dart_handle), intent(inout) :: handle
      integer(c_int) :: rc
    end function
    function c_dart_waitall_local(handles, n) bind(C, name="dart_waitall_local") result(rc)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: handles
      integer(c_size_t), value :: n
      integer(c_int) :: rc
    end function
    function c_dart_test_local(handle, result) bind(C, name="dart_test_local") result(rc)
      import :: c_int, c_int32_t, dart_handle
      type(dart_handle), intent(inout) :: handle
      integer(c_int32_t), intent(inout) :: result
      integer(c_int) :: rc
    end function
    function c_dart_test(handle, is_finished) bind(C, name="dart_test") result(rc)
      import :: c_int, c_int32_t, dart_handle
      type(dart_handle), intent(inout) :: handle
      integer(c_int32_t), intent(inout) :: is_finished
      integer(c_int) :: rc
    end function
    function c_dart_testall_local(handles, n, result) bind(C, name="dart_testall_local") &
        result(rc)
      import :: c_int, c_ptr, c_size_t, c_int32_t
      type(c_ptr), value :: handles
      integer(c_size_t), value :: n
      integer(c_int32_t), intent(inout) :: result
      integer(c_int) :: rc
    end function
    function c_dart_testall(handles, n, is_finished) bind(C, name="dart_testall") result(rc)
      import :: c_int, c_ptr, c_size_t, c_int32_t
      type(c_ptr), value :: handles
      integer(c_size_t), value :: n
      integer(c_int32_t), intent(inout) :: is_finished
      integer(c_int) :: rc
    end function
    function c_dart_handle_free(handle) bind(C, name="dart_handle_free") result(rc)
      import :: c_int, dart_handle
      type(dart_handle), intent(inout) :: handle
      integer(c_int) :: rc
    end function
    function c_dart_get_blocking(dest, gptr, nelem, src_type, dst_type) &
        bind(C, name="dart_get_blocking") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr
      type(c_ptr), value :: dest
      type(dart_gptr), value :: gptr
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      integer(c_int) :: rc
    end function
    function c_dart_put_blocking(gptr, src, nelem, src_type, dst_type) &
        bind(C, name="dart_put_blocking") result(rc)
      import :: c_int, c_ptr, c_size_t, c_intptr_t, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), value :: src
      integer(c_size_t), value :: nelem
      integer(c_intptr_t), value :: src_type, dst_type
      integer(c_int) :: rc
    end function

    ! ---- locks (dart_synchronization.h) --------------------------------------------
    function c_dart_team_lock_init(teamid, lock) bind(C, name="dart_team_lock_init") result(rc)
      import :: c_int, c_int16_t, dart_lock
      integer(c_int16_t), value :: teamid
      type(dart_lock), intent(inout) :: lock
      integer(c_int) :: rc
    end function
    function c_dart_team_lock_destroy(lock) bind(C, name="dart_team_lock_destroy") result(rc)
      import :: c_int, dart_lock
      type(dart_lock), intent(inout) :: lock
      integer(c_int) :: rc
    end function
    function c_dart_lock_acquire(lock) bind(C, name="dart_lock_acquire") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: lock
      integer(c_int) :: rc
    end function
    function c_dart_lock_try_acquire(lock, result) bind(C, name="dart_lock_try_acquire") &
        result(rc)
      import :: c_int, c_ptr, c_int32_t
      type(c_ptr), value :: lock
      integer(c_int32_t), intent(inout) :: result
      integer(c_int) :: rc
    end function
    function c_dart_lock_release(lock) bind(C, name="dart_lock_release") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: lock
      integer(c_int) :: rc
    end function
    function c_dart_lock_initialized(lock) bind(C, name="dart_lock_initialized") result(r)
      import :: c_ptr, c_bool
      type(c_ptr), value :: lock
      logical(c_bool) :: r
    end function

    ! ---- datatypes and operations (dart_types.h) -----------------------------------
    function c_dart_type_create_strided(basetype, stride, blocklen, newtype) &
        bind(C, name="dart_type_create_strided") result(rc)
      import :: c_int, c_intptr_t, c_size_t
      integer(c_intptr_t), value :: basetype
      integer(c_size_t), value :: stride, blocklen
      integer(c_intptr_t), intent(inout) :: newtype
      integer(c_int) :: rc
    end function
    function c_dart_type_create_indexed(basetype, count, blocklen, offset, newtype) &
        bind(C, name="dart_type_create_indexed") result(rc)
      import :: c_int, c_intptr_t, c_size_t, c_ptr
      integer(c_intptr_t), value :: basetype
      integer(c_size_t), value :: count
      type(c_ptr), value :: blocklen, offset
      integer(c_intptr_t), intent(inout) :: newtype
      integer(c_int) :: rc
    end function
    function c_dart_type_create_custom(num_bytes, newtype) &
        bind(C, name="dart_type_create_custom") result(rc)
      import :: c_int, c_intptr_t, c_size_t
      integer(c_size_t), value :: num_bytes
      integer(c_intptr_t), intent(inout) :: newtype
      integer(c_int) :: rc
    end function
    function c_dart_type_destroy(dart_type) bind(C, name="dart_type_destroy") result(rc)
      import :: c_int, c_intptr_t
      integer(c_intptr_t), intent(inout) :: dart_type
      integer(c_int) :: rc
    end function
    function c_dart_op_create(op, userdata, commute, dtype, dtype_is_tmp, new_op) &
        bind(C, name="dart_op_create") result(rc)
      import :: c_int, c_funptr, c_ptr, c_bool, c_intptr_t
      type(c_funptr), value :: op
      type(c_ptr), value :: userdata
      logical(c_bool), value :: commute
      integer(c_intptr_t), value :: dtype
      logical(c_bool), value :: dtype_is_tmp
      integer(c_intptr_t), intent(inout) :: new_op
      integer(c_int) :: rc
    end function
    function c_dart_op_destroy(op) bind(C, name="dart_op_destroy") result(rc)
      import :: c_int, c_intptr_t
      integer(c_intptr_t), intent(inout) :: op
      integer(c_int) :: rc
    end function

    ! ---- DART-MPI extensions (dart_ext.h) ------------------------------------------
    function c_dart_type_from_layout(elem, ndim, extents, strides, type, nelem) &
        bind(C, name="dart_type_from_layout") result(rc)
      import :: c_int, c_intptr_t, c_size_t, c_ptrdiff_t
      integer(c_intptr_t), value :: elem
      integer(c_int), value :: ndim
      integer(c_size_t), intent(in) :: extents(*)
      integer(c_ptrdiff_t), intent(in) :: strides(*)
      integer(c_intptr_t), intent(inout) :: type
      integer(c_size_t), intent(inout) :: nelem
      integer(c_int) :: rc
    end function
    function c_dart_type_layout_release(type) bind(C, name="dart_type_layout_release") &
        result(rc)
      import :: c_int, c_intptr_t
      integer(c_intptr_t), value :: type
      integer(c_int) :: rc
    end function
    function c_dart_type_layout_cache_stats(entries, held) &
        bind(C, name="dart_type_layout_cache_stats") result(rc)
      import :: c_int, c_size_t
      integer(c_size_t), intent(inout) :: entries, held
      integer(c_int) :: rc
    end function
    function c_dart_strerror(ret) bind(C, name="dart_strerror") result(s)
      import :: c_int, c_ptr
      integer(c_int), value :: ret
      type(c_ptr) :: s
    end function
    function c_dart_error_detail() bind(C, name="dart_error_detail") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function
    function c_dart_gptr_fields(gptr, unitid, flags, segid, teamid, offset) &
        bind(C, name="dart_gptr_fields") result(rc)
      import :: c_int, c_int32_t, c_int16_t, c_int64_t, dart_gptr
      type(dart_gptr), intent(in) :: gptr
      integer(c_int32_t), intent(inout) :: unitid, flags
      integer(c_int16_t), intent(inout) :: segid, teamid
      integer(c_int64_t), intent(inout) :: offset
      integer(c_int) :: rc
    end function
    function c_dart_gptr_make(unitid, flags, segid, teamid, offset, gptr) &
        bind(C, name="dart_gptr_make") result(rc)
      import :: c_int, c_int32_t, c_int16_t, c_int64_t, dart_gptr
      integer(c_int32_t), value :: unitid, flags
      integer(c_int16_t), value :: segid, teamid
      integer(c_int64_t), value :: offset
      type(dart_gptr), intent(inout) :: gptr
      integer(c_int) :: rc
    end function
    function c_dart_gptr_getaddr_node(gptr, addr) bind(C, name="dart_gptr_getaddr_node") &
        result(rc)
      import :: c_int, c_ptr, dart_gptr
      type(dart_gptr), value :: gptr
      type(c_ptr), intent(inout) :: addr
      integer(c_int) :: rc
    end function
    function c_dart_gptr_segment_size(gptr, nbytes) bind(C, name="dart_gptr_segment_size") &
        result(rc)
      import :: c_int, c_size_t, dart_gptr
      type(dart_gptr), value :: gptr
      integer(c_size_t), intent(inout) :: nbytes
      integer(c_int) :: rc
    end function
    function c_dart_node_count(nnodes) bind(C, name="dart_node_count") result(rc)
      import :: c_int, c_size_t
      integer(c_size_t), intent(inout) :: nnodes
      integer(c_int) :: rc
    end function
    function c_dart_unit_node(unit, node) bind(C, name="dart_unit_node") result(rc)
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: unit
      integer(c_int32_t), intent(inout) :: node
      integer(c_int) :: rc
    end function
    function c_dart_units_per_node_emulation(k) bind(C, name="dart_units_per_node_emulation") &
        result(rc)
      import :: c_int, c_int32_t
      integer(c_int32_t), intent(inout) :: k
      integer(c_int) :: rc
    end function
    function c_dart_config_string() bind(C, name="dart_config_string") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function
    function c_dart_mpi_quirks() bind(C, name="dart_mpi_quirks") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function
    function c_dart_mpi_version() bind(C, name="dart_mpi_version") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function

    ! ---- distributed arrays (dart_array.h) ----------------------------------------
    function c_dart_array_spec_init(spec) bind(C, name="dart_array_spec_init") result(rc)
      import :: c_int, c_dart_array_spec
      type(c_dart_array_spec), intent(inout) :: spec
      integer(c_int) :: rc
    end function
    function c_dart_array_dims_create(nunits, ndim, procs) bind(C, name="dart_array_dims_create") &
        result(rc)
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: nunits, ndim
      integer(c_int32_t), intent(inout) :: procs(*)
      integer(c_int) :: rc
    end function
    function c_dart_array_create(spec, array) bind(C, name="dart_array_create") result(rc)
      import :: c_int, c_dart_array_spec, dart_array
      type(c_dart_array_spec), intent(in) :: spec
      type(dart_array), intent(inout) :: array
      integer(c_int) :: rc
    end function
    function c_dart_array_destroy(array) bind(C, name="dart_array_destroy") result(rc)
      import :: c_int, dart_array
      type(dart_array), intent(inout) :: array
      integer(c_int) :: rc
    end function
    function c_dart_array_copy(src, dst) bind(C, name="dart_array_copy") result(rc)
      import :: c_int, c_ptr, dart_array
      type(c_ptr), value :: src
      type(dart_array), intent(inout) :: dst
      integer(c_int) :: rc
    end function
    function c_dart_array_get_info(array, info) bind(C, name="dart_array_get_info") result(rc)
      import :: c_int, c_ptr, c_dart_array_info
      type(c_ptr), value :: array
      type(c_dart_array_info), intent(inout) :: info
      integer(c_int) :: rc
    end function
    function c_dart_array_block(array, unit, lo, hi) bind(C, name="dart_array_block") result(rc)
      import :: c_int, c_ptr, c_int32_t, c_int64_t
      type(c_ptr), value :: array
      integer(c_int32_t), value :: unit
      integer(c_int64_t), intent(inout) :: lo(*), hi(*)
      integer(c_int) :: rc
    end function
    function c_dart_array_owner(array, index, unit) bind(C, name="dart_array_owner") result(rc)
      import :: c_int, c_ptr, c_int32_t, c_int64_t
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: index(*)
      integer(c_int32_t), intent(inout) :: unit
      integer(c_int) :: rc
    end function
    function c_dart_array_update_halo(array) bind(C, name="dart_array_update_halo") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: rc
    end function
    function c_dart_array_update_halo_begin(array) bind(C, name="dart_array_update_halo_begin") &
        result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: rc
    end function
    function c_dart_array_update_halo_end(array) bind(C, name="dart_array_update_halo_end") &
        result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: rc
    end function
    function c_dart_array_get(array, lo, hi, buf, buf_strides) bind(C, name="dart_array_get") &
        result(rc)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: lo(*), hi(*)
      type(c_ptr), value :: buf
      integer(c_int64_t), intent(in) :: buf_strides(*)
      integer(c_int) :: rc
    end function
    function c_dart_array_put(array, lo, hi, buf, buf_strides) bind(C, name="dart_array_put") &
        result(rc)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: lo(*), hi(*)
      type(c_ptr), value :: buf
      integer(c_int64_t), intent(in) :: buf_strides(*)
      integer(c_int) :: rc
    end function
    function c_dart_array_gather(array, buf, root) bind(C, name="dart_array_gather") result(rc)
      import :: c_int, c_ptr, c_int32_t
      type(c_ptr), value :: array, buf
      integer(c_int32_t), value :: root
      integer(c_int) :: rc
    end function
    function c_dart_array_scatter(array, buf, root) bind(C, name="dart_array_scatter") result(rc)
      import :: c_int, c_ptr, c_int32_t
      type(c_ptr), value :: array, buf
      integer(c_int32_t), value :: root
      integer(c_int) :: rc
    end function
    ! Files (.npy): path is a NUL-terminated string (the wrappers append c_null_char).
    function c_dart_array_save(array, path) bind(C, name="dart_array_save") result(rc)
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: rc
    end function
    function c_dart_array_load(path, spec, array) bind(C, name="dart_array_load") result(rc)
      import :: c_int, c_char, c_dart_array_spec, dart_array
      character(kind=c_char), intent(in) :: path(*)
      type(c_dart_array_spec), intent(in) :: spec
      type(dart_array), intent(inout) :: array
      integer(c_int) :: rc
    end function
    function c_dart_array_file_info(path, ndim, shape, dtype, components) &
        bind(C, name="dart_array_file_info") result(rc)
      import :: c_int, c_char, c_int32_t, c_int64_t, c_intptr_t
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int32_t), intent(inout) :: ndim
      integer(c_int64_t), intent(inout) :: shape(*)
      integer(c_intptr_t), intent(inout) :: dtype
      integer(c_int32_t), intent(inout) :: components
      integer(c_int) :: rc
    end function
    ! Reductions: result points to the result's values (c_null_ptr makes the call fail
    ! on every unit of the team).
    function c_dart_array_reduce(array, op, result) bind(C, name="dart_array_reduce") result(rc)
      import :: c_int, c_ptr, c_intptr_t
      type(c_ptr), value :: array, result
      integer(c_intptr_t), value :: op
      integer(c_int) :: rc
    end function
    function c_dart_array_reduce_type(array, op, dtype, count) &
        bind(C, name="dart_array_reduce_type") result(rc)
      import :: c_int, c_ptr, c_intptr_t, c_int32_t
      type(c_ptr), value :: array
      integer(c_intptr_t), value :: op
      integer(c_intptr_t), intent(inout) :: dtype
      integer(c_int32_t), intent(inout) :: count
      integer(c_int) :: rc
    end function
    function c_dart_array_norm(array, kind, result) bind(C, name="dart_array_norm") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, result
      integer(c_int), value :: kind
      integer(c_int) :: rc
    end function
    function c_dart_array_dot(a, b, result) bind(C, name="dart_array_dot") result(rc)
      import :: c_int, c_ptr
      type(c_ptr), value :: a, b, result
      integer(c_int) :: rc
    end function

    ! ---- helpers of the Fortran library (dart_f_shim.c) ----------------------------
    !> dart_team_comm + MPI_Comm_c2f: the team's communicator as a Fortran handle.
    function c_dartf_team_comm(team, fcomm) bind(C, name="dartf_team_comm") result(rc)
      import :: c_int, c_int16_t
      integer(c_int16_t), value :: team
      integer(c_int), intent(inout) :: fcomm
      integer(c_int) :: rc
    end function
    !> MPI_Comm_f2c + dart_team_create_from_comm: a team of a Fortran communicator's
    !> processes in the order of their ranks.
    function c_dartf_team_create_from_comm(parent, fcomm, newteam) &
        bind(C, name="dartf_team_create_from_comm") result(rc)
      import :: c_int, c_int16_t
      integer(c_int16_t), value :: parent
      integer(c_int), value :: fcomm
      integer(c_int16_t), intent(inout) :: newteam
      integer(c_int) :: rc
    end function
    !> A Fortran array descriptor in the form of dart_type_from_layout: the address of
    !> the first element, extents and strides (in DART elements, `parts` per Fortran
    !> element) of the returned number of dimensions (at most `capacity`); negative for an
    !> assumed-size array (-1), a stride that is no multiple of the element size (-2), or
    !> more than `capacity` dimensions (-3).
    function c_dartf_descriptor(buf, parts, addr, extents, strides, capacity) &
        bind(C, name="dartf_descriptor") result(nd)
      import :: c_int, c_ptr, c_size_t, c_ptrdiff_t
      type(*), dimension(..), intent(in) :: buf
      integer(c_int), value :: parts
      type(c_ptr), intent(inout) :: addr
      integer(c_size_t), intent(inout) :: extents(*)
      integer(c_ptrdiff_t), intent(inout) :: strides(*)
      integer(c_int), value :: capacity
      integer(c_int) :: nd
    end function
  end interface

contains

  pure function dartf_group_ptr(g) result(p)
    type(dart_group), intent(in) :: g
    type(c_ptr) :: p
    p = g%ptr
  end function dartf_group_ptr

  pure function dartf_lock_ptr(l) result(p)
    type(dart_lock), intent(in) :: l
    type(c_ptr) :: p
    p = l%ptr
  end function dartf_lock_ptr

  pure function dartf_lock_from(p) result(l)
    type(c_ptr), intent(in) :: p
    type(dart_lock) :: l
    l%ptr = p
  end function dartf_lock_from

  pure function dartf_handle_ptr(h) result(p)
    type(dart_handle), intent(in) :: h
    type(c_ptr) :: p
    p = h%ptr
  end function dartf_handle_ptr

  pure function dartf_array_ptr(a) result(p)
    type(dart_array), intent(in) :: a
    type(c_ptr) :: p
    p = a%ptr
  end function dartf_array_ptr

  pure function dartf_gptr_segid(g) result(v)
    type(dart_gptr), intent(in) :: g
    integer(c_int16_t) :: v
    v = g%segid
  end function dartf_gptr_segid

  pure function dartf_gptr_teamid(g) result(v)
    type(dart_gptr), intent(in) :: g
    integer(c_int16_t) :: v
    v = g%teamid
  end function dartf_gptr_teamid

  pure function dartf_gptr_offset(g) result(v)
    type(dart_gptr), intent(in) :: g
    integer(c_int64_t) :: v
    v = g%offset
  end function dartf_gptr_offset

  !> offset += offs with the wrap-around of C's uint64_t arithmetic (done on 32-bit halves,
  !> so that no signed overflow happens in Fortran).
  pure subroutine dartf_gptr_add_offset(g, offs)
    type(dart_gptr), intent(inout) :: g
    integer(c_int64_t), intent(in) :: offs
    integer(c_int64_t), parameter :: mask32 = int(z'FFFFFFFF', c_int64_t)
    integer(c_int64_t) :: lo, hi
    lo = iand(g%offset, mask32) + iand(offs, mask32)
    hi = iand(shiftr(g%offset, 32) + shiftr(offs, 32) + shiftr(lo, 32), mask32)
    g%offset = ior(shiftl(hi, 32), iand(lo, mask32))
  end subroutine dartf_gptr_add_offset

end module dart_c_binding
