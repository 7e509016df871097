! dart: the Fortran 2008 interface of DART-MPI (`use dart`).
!
! Every function of the DART 3.2 C API (and of the DART-MPI extensions) has a Fortran
! procedure of the same name, lower case, with an optional trailing `stat` (and
! `errmsg`): on failure `stat` receives the DART code (DART_ERR_INVAL, ...) and `errmsg`
! the text "<function>: <detail>"; without `stat`, a failure prints
! "DART error on unit <id>: <function>: <detail>" to error_unit and aborts the whole job
! (dart_abort -> MPI_Abort). Outputs are written only on success: they are
! intent(inout), since intent(out) would make them undefined on entry. Unit ids are
! 0-based.
!
! Layout of the library (the style of MPICH's mpi_f08):
!   dart_c_binding     private: raw bind(C) interfaces, interoperable types, constants
!   dart_f_base        private: the error path (stat / errmsg / abort)
!   dart_buf_<type>    private: the buffer wrappers for one element type (a template)
!   dart_f_shim.c      private: dart_team_comm -> mpi_f08 handle; section datatypes
!   dart (this file)   public: re-exports, non-buffer wrappers, C-style specifics
!
! See fortran/README.md for the mapping of types, kinds and array sections to DART
! datatypes and for the decisions where the C API has no Fortran equivalent.
module dart
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64, output_unit, error_unit
  use mpi_f08, only: MPI_Comm
  use dart_c_binding
  use dart_f_base
  use dart_buf_int8
  use dart_buf_int16
  use dart_buf_int32
  use dart_buf_int64
  use dart_buf_real32
  use dart_buf_real64
  use dart_buf_complex32
  use dart_buf_complex64
  implicit none
  private

  ! ---- kinds, types, constants (from dart_c_binding) ------------------------------------
  public :: DART_TEAM_KIND, DART_DATATYPE_KIND, DART_OPERATION_KIND, DART_UNIT_KIND
  public :: dart_gptr, dart_handle, dart_group, dart_lock
  public :: DART_GPTR_NULL, DART_HANDLE_NULL, DART_GROUP_NULL, DART_LOCK_NULL
  ! The return codes, DART_TYPE_* and DART_OP_* of dart_tables.h (generated).
#include "dart_tables_public.inc"
  public :: DART_EXIT_SUCCESS, DART_EXIT_ABORT, DART_EXIT_ASSERT
  public :: DART_THREAD_SINGLE, DART_THREAD_MULTIPLE
  public :: DART_TEAM_ALL, DART_TEAM_NULL, DART_UNDEFINED_TEAM_ID, DART_UNDEFINED_UNIT_ID
  public :: DART_SEGMENT_LOCAL
  public :: DART_TYPE_SIZET, DART_OP_MINMAX_MIN, DART_OP_MINMAX_MAX

  ! ---- buffer wrappers (generics from the dart_buf_* modules, extended below) ----------
  public :: dart_put, dart_get, dart_put_blocking, dart_get_blocking
  public :: dart_put_handle, dart_get_handle
  public :: dart_accumulate, dart_accumulate_blocking_local, dart_fetch_and_op
  public :: dart_compare_and_swap
  public :: dart_bcast, dart_scatter, dart_gather, dart_allgather, dart_allgatherv
  public :: dart_reduce, dart_allreduce, dart_alltoall
  public :: dart_send, dart_recv, dart_sendrecv
  public :: dart_team_memregister, dart_team_memregister_aligned
  public :: dart_local, dart_datatype_of

  ! ---- the procedures of this file ------------------------------------------------------
  public :: dart_init, dart_init_thread, dart_exit, dart_initialized, dart_abort
  public :: dart_myid, dart_size
  public :: dart_group_create, dart_group_destroy, dart_group_clone, dart_group_union
  public :: dart_group_intersect, dart_group_addmember, dart_group_delmember
  public :: dart_group_ismember, dart_group_size, dart_group_getmembers, dart_group_split
  public :: dart_team_create, dart_team_destroy, dart_team_clone, dart_team_get_group
  public :: dart_team_myid, dart_team_size, dart_team_unit_l2g, dart_team_unit_g2l
  public :: dart_team_comm
  public :: dart_memalloc, dart_memfree, dart_team_memalloc_aligned, dart_team_memfree
  public :: dart_team_memderegister
  public :: dart_gptr_getaddr, dart_gptr_setaddr, dart_gptr_incaddr, dart_gptr_setunit
  public :: dart_gptr_getflags, dart_gptr_setflags, dart_gptr_getaddr_node
  public :: dart_gptr_segment_size, dart_gptr_fields, dart_gptr_make
  public :: dart_gptr_unit, dart_gptr_segid, dart_gptr_teamid, dart_gptr_flags
  public :: dart_gptr_offset, dart_gptr_isnull, dart_gptr_equal
  public :: operator(==), operator(/=)
  public :: dart_wait, dart_waitall, dart_wait_local, dart_waitall_local
  public :: dart_test, dart_testall, dart_test_local, dart_testall_local, dart_handle_free
  public :: dart_flush, dart_flush_all, dart_flush_local, dart_flush_local_all
  public :: dart_barrier
  public :: dart_type_create_strided, dart_type_create_indexed, dart_type_create_custom
  public :: dart_type_destroy, dart_op_create, dart_op_destroy, dart_operator
  public :: dart_team_lock_init, dart_team_lock_destroy, dart_lock_acquire
  public :: dart_lock_try_acquire, dart_lock_release, dart_lock_initialized
  public :: dart_strerror, dart_error_detail, dart_node_count, dart_unit_node
  public :: dart_units_per_node_emulation, dart_config_string, dart_mpi_version
  public :: dart_section_type_cache_size

  !> A user reduction for dart_op_create: inoutvec(i) = invec(i) (op) inoutvec(i) for the
  !> len elements; write it as a bind(C) subroutine and use c_f_pointer on the vectors.
  abstract interface
    subroutine dart_operator(invec, inoutvec, len, userdata) bind(C)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: invec, inoutvec
      integer(c_size_t), value :: len
      type(c_ptr), value :: userdata
    end subroutine dart_operator
  end interface

  ! ---- generics of this file (integer kind variants) ----------------------------------
  interface dart_size
    module procedure dart_size_i4, dart_size_i8
  end interface
  interface dart_group_size
    module procedure dart_group_size_i4, dart_group_size_i8
  end interface
  interface dart_team_size
    module procedure dart_team_size_i4, dart_team_size_i8
  end interface
  interface dart_memalloc
    module procedure dart_memalloc_i4, dart_memalloc_i8
  end interface
  interface dart_team_memalloc_aligned
    module procedure dart_team_memalloc_aligned_i4, dart_team_memalloc_aligned_i8
  end interface
  interface dart_gptr_incaddr
    module procedure dart_gptr_incaddr_i4, dart_gptr_incaddr_i8
  end interface
  interface dart_gptr_segment_size
    module procedure dart_gptr_segment_size_i4, dart_gptr_segment_size_i8
  end interface
  interface dart_type_create_strided
    module procedure dart_type_create_strided_i4, dart_type_create_strided_i8
  end interface
  interface dart_type_create_indexed
    module procedure dart_type_create_indexed_i4, dart_type_create_indexed_i8
  end interface
  interface dart_type_create_custom
    module procedure dart_type_create_custom_i4, dart_type_create_custom_i8
  end interface
  interface dart_node_count
    module procedure dart_node_count_i4, dart_node_count_i8
  end interface
  ! Comparisons: gptrs as DART_GPTR_EQUAL; handles, groups and locks by identity (so
  ! that `h == DART_HANDLE_NULL` works as in C; elemental, so `all(hs == DART_HANDLE_NULL)`).
  interface operator(==)
    module procedure gptr_eq, handle_eq, group_eq, lock_eq
  end interface
  interface operator(/=)
    module procedure gptr_ne, handle_ne, group_ne, lock_ne
  end interface

  ! ---- explicit C-style specifics: (buffer, nelem, datatype(s), ...) as in C -----------
  ! The buffer is only an address (that of its first element, as a C void *); nelem and
  ! the datatypes say what it holds. nelem may be integer(c_size_t) or default integer.
  interface dart_team_memregister
    module procedure team_memregister_c8, team_memregister_c4
  end interface
  interface dart_team_memregister_aligned
    module procedure team_memregister_aligned_c8, team_memregister_aligned_c4
  end interface
  interface dart_put
    module procedure put_c8, put_c4
  end interface
  interface dart_get
    module procedure get_c8, get_c4
  end interface
  interface dart_put_blocking
    module procedure put_blocking_c8, put_blocking_c4
  end interface
  interface dart_get_blocking
    module procedure get_blocking_c8, get_blocking_c4
  end interface
  interface dart_put_handle
    module procedure put_handle_c8, put_handle_c4
  end interface
  interface dart_get_handle
    module procedure get_handle_c8, get_handle_c4
  end interface
  interface dart_accumulate
    module procedure accumulate_c8, accumulate_c4
  end interface
  interface dart_accumulate_blocking_local
    module procedure accumulate_blocking_local_c8, accumulate_blocking_local_c4
  end interface
  interface dart_bcast
    module procedure bcast_c8, bcast_c4
  end interface
  interface dart_scatter
    module procedure scatter_c8, scatter_c4
  end interface
  interface dart_gather
    module procedure gather_c8, gather_c4
  end interface
  interface dart_allgather
    module procedure allgather_c8, allgather_c4
  end interface
  interface dart_allgatherv
    module procedure allgatherv_c8
  end interface
  interface dart_reduce
    module procedure reduce_c8, reduce_c4
  end interface
  interface dart_allreduce
    module procedure allreduce_c8, allreduce_c4
  end interface
  interface dart_alltoall
    module procedure alltoall_c8, alltoall_c4
  end interface
  interface dart_send
    module procedure send_c8, send_c4
  end interface
  interface dart_recv
    module procedure recv_c8, recv_c4
  end interface
  interface dart_sendrecv
    module procedure sendrecv_c8
  end interface

contains

  ! =====================================================================================
  ! Initialization
  ! =====================================================================================

  !> Start the runtime (collective over all processes). Initializes MPI unless it is
  !> already running (e.g. MPI_Init called by the program, then DART leaves it running).
  subroutine dart_init(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_init(c_null_ptr, c_null_ptr)
    if (rc == DART_OK) call c_dartf_type_cache_clear(0_c_int)   ! types of a past cycle
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_init', stat, errmsg)
  end subroutine dart_init

  !> Like dart_init, asking MPI for MPI_THREAD_MULTIPLE; thread_safety receives the level
  !> provided (DART_THREAD_MULTIPLE or DART_THREAD_SINGLE).
  subroutine dart_init_thread(thread_safety, stat, errmsg)
    integer, intent(inout) :: thread_safety
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc, level
    rc = c_dart_init_thread(c_null_ptr, c_null_ptr, level)
    if (rc == DART_OK) then
      thread_safety = int(level)
      call c_dartf_type_cache_clear(0_c_int)
    end if
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_init_thread', stat, errmsg)
  end subroutine dart_init_thread

  !> Shut the runtime down (collective). Finalizes MPI only if dart_init started it.
  subroutine dart_exit(stat, errmsg)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (c_dart_initialized()) call c_dartf_type_cache_clear(1_c_int)
    rc = c_dart_exit()
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_exit', stat, errmsg)
  end subroutine dart_exit

  !> Whether DART is initialized (any time, also before dart_init).
  logical function dart_initialized()
    dart_initialized = c_dart_initialized()
  end function dart_initialized

  !> Terminate the whole job with exit status errorcode (MPI_Abort). Output written
  !> before is flushed, and the launcher gets 0.3 s to forward it (MPICH's hydra may
  !> drop pending output at MPI_Abort otherwise).
  subroutine dart_abort(errorcode)
    integer, intent(in) :: errorcode
    flush(output_unit)
    flush(error_unit)
    call dartf_pause(0.3)
    call c_dart_abort(int(errorcode, c_int))
  end subroutine dart_abort

  !> The calling unit's id in DART_TEAM_ALL (0-based).
  subroutine dart_myid(myid, stat, errmsg)
    integer(DART_UNIT_KIND), intent(inout) :: myid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_myid(myid)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_myid', stat, errmsg)
  end subroutine dart_myid

  !> Number of units in DART_TEAM_ALL.
  subroutine dart_size_i8(size, stat, errmsg)
    integer(int64), intent(inout) :: size
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_size(n)
    if (rc == DART_OK) size = int(n, int64)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_size', stat, errmsg)
  end subroutine dart_size_i8

  subroutine dart_size_i4(size, stat, errmsg)
    integer(int32), intent(inout) :: size
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: n8
    n8 = -1  ! written by the int64 version only on success
    call dart_size_i8(n8, stat, errmsg)
    if (n8 >= 0) size = int(n8, int32)
  end subroutine dart_size_i4

  ! =====================================================================================
  ! Groups (local objects; global unit ids, kept sorted)
  ! =====================================================================================

  !> Allocate an empty group.
  subroutine dart_group_create(group, stat, errmsg)
    type(dart_group), intent(inout) :: group
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_create(group)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_create', stat, errmsg)
  end subroutine dart_group_create

  !> Release a group; group becomes DART_GROUP_NULL.
  subroutine dart_group_destroy(group, stat, errmsg)
    type(dart_group), intent(inout) :: group
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_destroy(group)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_destroy', stat, errmsg)
  end subroutine dart_group_destroy

  !> gout = a new copy of gin.
  subroutine dart_group_clone(gin, gout, stat, errmsg)
    type(dart_group), intent(in) :: gin
    type(dart_group), intent(inout) :: gout
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_clone(dartf_group_ptr(gin), gout)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_clone', stat, errmsg)
  end subroutine dart_group_clone

  !> gout = a new group, the union of g1 and g2.
  subroutine dart_group_union(g1, g2, gout, stat, errmsg)
    type(dart_group), intent(in) :: g1, g2
    type(dart_group), intent(inout) :: gout
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_union(dartf_group_ptr(g1), dartf_group_ptr(g2), gout)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_union', stat, errmsg)
  end subroutine dart_group_union

  !> gout = a new group, the intersection of g1 and g2.
  subroutine dart_group_intersect(g1, g2, gout, stat, errmsg)
    type(dart_group), intent(in) :: g1, g2
    type(dart_group), intent(inout) :: gout
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_intersect(dartf_group_ptr(g1), dartf_group_ptr(g2), gout)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_intersect', stat, errmsg)
  end subroutine dart_group_intersect

  !> Add global unit unitid to g.
  subroutine dart_group_addmember(g, unitid, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer(DART_UNIT_KIND), intent(in) :: unitid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_addmember(dartf_group_ptr(g), unitid)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_addmember', stat, errmsg)
  end subroutine dart_group_addmember

  !> Remove global unit unitid from g.
  subroutine dart_group_delmember(g, unitid, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer(DART_UNIT_KIND), intent(in) :: unitid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_group_delmember(dartf_group_ptr(g), unitid)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_delmember', stat, errmsg)
  end subroutine dart_group_delmember

  !> ismember = whether global unit unitid is in g.
  subroutine dart_group_ismember(g, unitid, ismember, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer(DART_UNIT_KIND), intent(in) :: unitid
    logical, intent(inout) :: ismember
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: r
    rc = c_dart_group_ismember(dartf_group_ptr(g), unitid, r)
    if (rc == DART_OK) ismember = r /= 0
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_ismember', stat, errmsg)
  end subroutine dart_group_ismember

  !> Number of units in g.
  subroutine dart_group_size_i8(g, size, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer(int64), intent(inout) :: size
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_group_size(dartf_group_ptr(g), n)
    if (rc == DART_OK) size = int(n, int64)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_size', stat, errmsg)
  end subroutine dart_group_size_i8

  subroutine dart_group_size_i4(g, size, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer(int32), intent(inout) :: size
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: n8
    n8 = -1  ! written by the int64 version only on success
    call dart_group_size_i8(g, n8, stat, errmsg)
    if (n8 >= 0) size = int(n8, int32)
  end subroutine dart_group_size_i4

  !> The members of g, ascending, in unitids(1:dart_group_size(g)); unitids must be at
  !> least that long (DART_ERR_INVAL otherwise).
  subroutine dart_group_getmembers(g, unitids, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer(DART_UNIT_KIND), intent(inout), target, contiguous :: unitids(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_group_size(dartf_group_ptr(g), n)
    if (rc == DART_OK) then
      if (size(unitids, kind=c_size_t) < n) then
        call dartf_fail(DART_ERR_INVAL, 'dart_group_getmembers', 'unitids is shorter than ' &
          // 'the group', stat, errmsg)
        return
      end if
      rc = c_dart_group_getmembers(dartf_group_ptr(g), c_loc(unitids))
    end if
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_getmembers', stat, errmsg)
  end subroutine dart_group_getmembers

  !> Split g into at most n groups of nearly equal size: gout(1:nout) are allocated
  !> (gout must have room for n).
  subroutine dart_group_split(g, n, nout, gout, stat, errmsg)
    type(dart_group), intent(in) :: g
    integer, intent(in) :: n
    integer, intent(inout) :: nout
    type(dart_group), intent(inout), target, contiguous :: gout(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: k
    if (n < 0 .or. size(gout) < n) then
      call dartf_fail(DART_ERR_INVAL, 'dart_group_split', 'n must be >= 0 and gout must ' &
        // 'have room for n groups', stat, errmsg)
      return
    end if
    rc = c_dart_group_split(dartf_group_ptr(g), int(n, c_size_t), k, c_loc(gout))
    if (rc == DART_OK) nout = int(k)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_group_split', stat, errmsg)
  end subroutine dart_group_split

  ! =====================================================================================
  ! Teams
  ! =====================================================================================

  !> A new group holding the global ids of the members of teamid.
  subroutine dart_team_get_group(teamid, group, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    type(dart_group), intent(inout) :: group
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_get_group(teamid, group)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_get_group', stat, errmsg)
  end subroutine dart_team_get_group

  !> Create a team of the units of group (a subset of teamid). Collective over ALL units
  !> of teamid; members get the new id, the others DART_TEAM_NULL.
  subroutine dart_team_create(teamid, group, newteam, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    type(dart_group), intent(in) :: group
    integer(DART_TEAM_KIND), intent(inout) :: newteam
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int16_t) :: t
    t = DART_TEAM_NULL
    rc = c_dart_team_create(teamid, dartf_group_ptr(group), t)
    if (rc == DART_OK) newteam = t
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_create', stat, errmsg)
  end subroutine dart_team_create

  !> Destroy a team (collective over its members); teamid becomes DART_TEAM_NULL.
  subroutine dart_team_destroy(teamid, stat, errmsg)
    integer(DART_TEAM_KIND), intent(inout) :: teamid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_destroy(teamid)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_destroy', stat, errmsg)
  end subroutine dart_team_destroy

  !> A new team with the members of team (collective over them).
  subroutine dart_team_clone(team, newteam, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: team
    integer(DART_TEAM_KIND), intent(inout) :: newteam
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int16_t) :: t
    t = DART_TEAM_NULL
    rc = c_dart_team_clone(team, t)
    if (rc == DART_OK) newteam = t
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_clone', stat, errmsg)
  end subroutine dart_team_clone

  !> The calling unit's id in teamid.
  subroutine dart_team_myid(teamid, myid, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(DART_UNIT_KIND), intent(inout) :: myid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_myid(teamid, myid)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_myid', stat, errmsg)
  end subroutine dart_team_myid

  !> Number of units in teamid.
  subroutine dart_team_size_i8(teamid, size, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int64), intent(inout) :: size
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_team_size(teamid, n)
    if (rc == DART_OK) size = int(n, int64)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_size', stat, errmsg)
  end subroutine dart_team_size_i8

  subroutine dart_team_size_i4(teamid, size, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int32), intent(inout) :: size
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: n8
    n8 = -1  ! written by the int64 version only on success
    call dart_team_size_i8(teamid, n8, stat, errmsg)
    if (n8 >= 0) size = int(n8, int32)
  end subroutine dart_team_size_i4

  !> Global id of team unit localid.
  subroutine dart_team_unit_l2g(team, localid, globalid, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: team
    integer(DART_UNIT_KIND), intent(in) :: localid
    integer(DART_UNIT_KIND), intent(inout) :: globalid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_unit_l2g(team, localid, globalid)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_unit_l2g', stat, errmsg)
  end subroutine dart_team_unit_l2g

  !> Team id of global unit globalid (DART_UNDEFINED_UNIT_ID if it is not a member).
  subroutine dart_team_unit_g2l(team, globalid, localid, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: team
    integer(DART_UNIT_KIND), intent(in) :: globalid
    integer(DART_UNIT_KIND), intent(inout) :: localid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_unit_g2l(team, globalid, localid)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_unit_g2l', stat, errmsg)
  end subroutine dart_team_unit_g2l

  !> The team's communicator as an mpi_f08 handle (ranks = team unit ids). Owned by DART:
  !> do not free it; valid until the team is destroyed or dart_exit. Its error handler
  !> is MPI_ERRORS_RETURN. (Converted from C with MPI_Comm_c2f in dart_f_shim.c.)
  subroutine dart_team_comm(team, comm, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: team
    type(MPI_Comm), intent(inout) :: comm
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc, f
    rc = c_dartf_team_comm(team, f)
    if (rc == DART_OK) comm%MPI_VAL = int(f)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_comm', stat, errmsg, source=DARTF_DETAIL_SHIM)
  end subroutine dart_team_comm

  ! =====================================================================================
  ! Global memory
  ! =====================================================================================

  !> Allocate nelem elements of dtype in the calling unit's part of the global memory
  !> (local call; pool size DART_POOL_SIZE). gptr references the first byte.
  subroutine dart_memalloc_i8(nelem, dtype, gptr, stat, errmsg)
    integer(int64), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_memalloc', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_memalloc(int(nelem, c_size_t), dtype, gptr)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_memalloc', stat, errmsg)
  end subroutine dart_memalloc_i8

  subroutine dart_memalloc_i4(nelem, dtype, gptr, stat, errmsg)
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dart_memalloc_i8(int(nelem, int64), dtype, gptr, stat, errmsg)
  end subroutine dart_memalloc_i4

  !> Free memory of dart_memalloc (only the allocating unit).
  subroutine dart_memfree(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_memfree(gptr)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_memfree', stat, errmsg)
  end subroutine dart_memfree

  !> Allocate nelem elements of dtype on every member of teamid (collective, symmetric);
  !> gptr references team unit 0's part (dart_gptr_setunit reaches the others).
  subroutine dart_team_memalloc_aligned_i8(teamid, nelem, dtype, gptr, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int64), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_team_memalloc_aligned', 'nelem is negative', &
        stat, errmsg)
      return
    end if
    rc = c_dart_team_memalloc_aligned(teamid, int(nelem, c_size_t), dtype, gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_memalloc_aligned', stat, errmsg)
  end subroutine dart_team_memalloc_aligned_i8

  subroutine dart_team_memalloc_aligned_i4(teamid, nelem, dtype, gptr, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dart_team_memalloc_aligned_i8(teamid, int(nelem, int64), dtype, gptr, stat, errmsg)
  end subroutine dart_team_memalloc_aligned_i4

  !> Free a segment of dart_team_memalloc_aligned (collective over its team).
  subroutine dart_team_memfree(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_memfree(gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_memfree', stat, errmsg)
  end subroutine dart_team_memfree

  !> C-style dart_team_memregister: nlelem elements of dtype at the C address addr.
  subroutine team_memregister_c8(teamid, nlelem, dtype, addr, gptr, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(c_size_t), intent(in) :: nlelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(c_ptr), intent(in) :: addr
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nlelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_team_memregister', 'nlelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_team_memregister(teamid, nlelem, dtype, addr, gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_memregister', stat, errmsg)
  end subroutine team_memregister_c8

  subroutine team_memregister_c4(teamid, nlelem, dtype, addr, gptr, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int32), intent(in) :: nlelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(c_ptr), intent(in) :: addr
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call team_memregister_c8(teamid, int(nlelem, c_size_t), dtype, addr, gptr, stat, errmsg)
  end subroutine team_memregister_c4

  !> C-style dart_team_memregister_aligned.
  subroutine team_memregister_aligned_c8(teamid, nelem, dtype, addr, gptr, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(c_ptr), intent(in) :: addr
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_team_memregister_aligned', 'nelem is negative', &
        stat, errmsg)
      return
    end if
    rc = c_dart_team_memregister_aligned(teamid, nelem, dtype, addr, gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_memregister_aligned', stat, errmsg)
  end subroutine team_memregister_aligned_c8

  subroutine team_memregister_aligned_c4(teamid, nelem, dtype, addr, gptr, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(c_ptr), intent(in) :: addr
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call team_memregister_aligned_c8(teamid, int(nelem, c_size_t), dtype, addr, gptr, stat, &
                                     errmsg)
  end subroutine team_memregister_aligned_c4

  !> Withdraw a registered segment (collective); the user memory is not freed.
  subroutine dart_team_memderegister(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_memderegister(gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_memderegister', stat, errmsg)
  end subroutine dart_team_memderegister

  ! =====================================================================================
  ! Global pointers
  ! =====================================================================================

  !> Local address of the memory at gptr, which must belong to the calling unit.
  subroutine dart_gptr_getaddr(gptr, addr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(c_ptr), intent(inout) :: addr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    type(c_ptr) :: p
    rc = c_dart_gptr_getaddr(gptr, p)
    if (rc == DART_OK) addr = p
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_getaddr', stat, errmsg)
  end subroutine dart_gptr_getaddr

  !> Load/store address of the memory at gptr for the calling unit or a unit on the same
  !> node (DART-MPI extension); DART_ERR_INVAL for a unit on another node.
  subroutine dart_gptr_getaddr_node(gptr, addr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(c_ptr), intent(inout) :: addr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    type(c_ptr) :: p
    rc = c_dart_gptr_getaddr_node(gptr, p)
    if (rc == DART_OK) addr = p
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_getaddr_node', stat, errmsg)
  end subroutine dart_gptr_getaddr_node

  !> Make gptr reference the local address addr (inside the calling unit's part of
  !> gptr's segment).
  subroutine dart_gptr_setaddr(gptr, addr, stat, errmsg)
    type(dart_gptr), intent(inout) :: gptr
    type(c_ptr), intent(in) :: addr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_gptr_setaddr(gptr, addr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_setaddr', stat, errmsg)
  end subroutine dart_gptr_setaddr

  !> Move gptr by offs bytes (may be negative). Never fails.
  subroutine dart_gptr_incaddr_i8(gptr, offs, stat, errmsg)
    type(dart_gptr), intent(inout) :: gptr
    integer(int64), intent(in) :: offs
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dartf_gptr_add_offset(gptr, offs)
    if (present(stat)) stat = DART_OK
    if (.false. .and. present(errmsg)) errmsg = ''
  end subroutine dart_gptr_incaddr_i8

  subroutine dart_gptr_incaddr_i4(gptr, offs, stat, errmsg)
    type(dart_gptr), intent(inout) :: gptr
    integer(int32), intent(in) :: offs
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dart_gptr_incaddr_i8(gptr, int(offs, int64), stat, errmsg)
  end subroutine dart_gptr_incaddr_i4

  !> Let gptr reference the same offset in the part of team unit `unit` (relative to
  !> gptr's team). DART_ERR_INVAL if unit does not fit the 24-bit field.
  subroutine dart_gptr_setunit(gptr, unit, stat, errmsg)
    type(dart_gptr), intent(inout) :: gptr
    integer(DART_UNIT_KIND), intent(in) :: unit
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: u, f
    integer(c_int16_t) :: s, t
    integer(c_int64_t) :: o
    type(dart_gptr) :: g
    rc = c_dart_gptr_fields(gptr, u, f, s, t, o)
    if (rc == DART_OK) rc = c_dart_gptr_make(unit, f, s, t, o, g)
    if (rc == DART_OK) gptr = g
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_setunit', stat, errmsg)
  end subroutine dart_gptr_setunit

  !> The 16-bit flags stored for gptr's segment (0 .. 65535).
  subroutine dart_gptr_getflags(gptr, flags, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(inout) :: flags
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int16_t) :: f
    rc = c_dart_gptr_getflags(gptr, f)
    if (rc == DART_OK) flags = iand(int(f), 65535)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_getflags', stat, errmsg)
  end subroutine dart_gptr_getflags

  !> Store flags (0 .. 65535) for gptr's segment; the low 8 bits also go into gptr.
  subroutine dart_gptr_setflags(gptr, flags, stat, errmsg)
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(in) :: flags
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (flags < 0 .or. flags > 65535) then
      call dartf_fail(DART_ERR_INVAL, 'dart_gptr_setflags', 'flags must be in [0, 65535]', &
        stat, errmsg)
      return
    end if
    rc = c_dart_gptr_setflags(gptr, int(merge(flags - 65536, flags, flags > 32767), c_int16_t))
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_setflags', stat, errmsg)
  end subroutine dart_gptr_setflags

  !> Bytes of gptr's segment at gptr's unit (DART-MPI extension).
  subroutine dart_gptr_segment_size_i8(gptr, nbytes, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer(int64), intent(inout) :: nbytes
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_gptr_segment_size(gptr, n)
    if (rc == DART_OK) nbytes = int(n, int64)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_segment_size', stat, errmsg)
  end subroutine dart_gptr_segment_size_i8

  subroutine dart_gptr_segment_size_i4(gptr, nbytes, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer(int32), intent(inout) :: nbytes
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_gptr_segment_size(gptr, n)
    if (rc == DART_OK .and. n > huge(nbytes)) then
      call dartf_fail(DART_ERR_INVAL, 'dart_gptr_segment_size', 'the size does not fit ' &
        // 'integer(int32); pass an integer(int64)', stat, errmsg)
      return
    end if
    if (rc == DART_OK) nbytes = int(n, int32)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_gptr_segment_size', stat, errmsg)
  end subroutine dart_gptr_segment_size_i4

  !> All fields of a gptr (each output optional). Never fails.
  subroutine dart_gptr_fields(gptr, unitid, flags, segid, teamid, offset)
    type(dart_gptr), intent(in) :: gptr
    integer(DART_UNIT_KIND), intent(out), optional :: unitid
    integer, intent(out), optional :: flags
    integer(c_int16_t), intent(out), optional :: segid
    integer(DART_TEAM_KIND), intent(out), optional :: teamid
    integer(int64), intent(out), optional :: offset
    integer(c_int32_t) :: u, f
    integer(c_int16_t) :: s, t
    integer(c_int64_t) :: o
    integer(c_int) :: rc
    rc = c_dart_gptr_fields(gptr, u, f, s, t, o)
    if (present(unitid)) unitid = u
    if (present(flags)) flags = int(f)
    if (present(segid)) segid = s
    if (present(teamid)) teamid = t
    if (present(offset)) offset = o
  end subroutine dart_gptr_fields

  !> Build a gptr from its fields (DART_ERR_INVAL if unitid does not fit 24 bits or
  !> flags 8 bits).
  subroutine dart_gptr_make(unitid, flags, segid, teamid, offset, gptr, stat, errmsg)
    integer(DART_UNIT_KIND), intent(in) :: unitid
    integer, intent(in) :: flags
    integer(c_int16_t), intent(in) :: segid
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer(int64), intent(in) :: offset
    type(dart_gptr), intent(inout) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_gptr_make(unitid, int(flags, c_int32_t), segid, teamid, offset, gptr)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_gptr_make', stat, errmsg)
  end subroutine dart_gptr_make

  !> Unit id (relative to the gptr's team) of a gptr.
  integer(DART_UNIT_KIND) function dart_gptr_unit(gptr)
    type(dart_gptr), intent(in) :: gptr
    integer(c_int32_t) :: f
    integer(c_int16_t) :: s, t
    integer(c_int64_t) :: o
    integer(c_int) :: rc
    rc = c_dart_gptr_fields(gptr, dart_gptr_unit, f, s, t, o)
  end function dart_gptr_unit

  !> The 8-bit flags copy inside a gptr.
  integer function dart_gptr_flags(gptr)
    type(dart_gptr), intent(in) :: gptr
    integer(c_int32_t) :: u, f
    integer(c_int16_t) :: s, t
    integer(c_int64_t) :: o
    integer(c_int) :: rc
    rc = c_dart_gptr_fields(gptr, u, f, s, t, o)
    dart_gptr_flags = int(f)
  end function dart_gptr_flags

  !> Segment id of a gptr.
  pure integer(c_int16_t) function dart_gptr_segid(gptr)
    type(dart_gptr), intent(in) :: gptr
    dart_gptr_segid = dartf_gptr_segid(gptr)
  end function dart_gptr_segid

  !> Team id of a gptr.
  pure integer(DART_TEAM_KIND) function dart_gptr_teamid(gptr)
    type(dart_gptr), intent(in) :: gptr
    dart_gptr_teamid = dartf_gptr_teamid(gptr)
  end function dart_gptr_teamid

  !> Byte offset of a gptr into its unit's part of the segment.
  pure integer(int64) function dart_gptr_offset(gptr)
    type(dart_gptr), intent(in) :: gptr
    dart_gptr_offset = dartf_gptr_offset(gptr)
  end function dart_gptr_offset

  !> DART_GPTR_ISNULL.
  logical function dart_gptr_isnull(gptr)
    type(dart_gptr), intent(in) :: gptr
    dart_gptr_isnull = dart_gptr_unit(gptr) < 0 .and. dartf_gptr_segid(gptr) == 0 .and. &
                       dartf_gptr_teamid(gptr) == DART_TEAM_NULL .and. &
                       dartf_gptr_offset(gptr) == 0
  end function dart_gptr_isnull

  !> DART_GPTR_EQUAL: same unit, segment, team and offset (flags not compared).
  logical function dart_gptr_equal(a, b)
    type(dart_gptr), intent(in) :: a, b
    dart_gptr_equal = dart_gptr_unit(a) == dart_gptr_unit(b) .and. &
                      dartf_gptr_segid(a) == dartf_gptr_segid(b) .and. &
                      dartf_gptr_teamid(a) == dartf_gptr_teamid(b) .and. &
                      dartf_gptr_offset(a) == dartf_gptr_offset(b)
  end function dart_gptr_equal

  logical function gptr_eq(a, b)
    type(dart_gptr), intent(in) :: a, b
    gptr_eq = dart_gptr_equal(a, b)
  end function gptr_eq

  logical function gptr_ne(a, b)
    type(dart_gptr), intent(in) :: a, b
    gptr_ne = .not. dart_gptr_equal(a, b)
  end function gptr_ne

  !> Two C pointers name the same object (both null counts as equal).
  pure logical function same_ptr(a, b)
    type(c_ptr), intent(in) :: a, b
    if (.not. c_associated(a)) then
      same_ptr = .not. c_associated(b)
    else
      same_ptr = c_associated(a, b)
    end if
  end function same_ptr

  elemental logical function handle_eq(a, b)
    type(dart_handle), intent(in) :: a, b
    handle_eq = same_ptr(dartf_handle_ptr(a), dartf_handle_ptr(b))
  end function handle_eq

  elemental logical function handle_ne(a, b)
    type(dart_handle), intent(in) :: a, b
    handle_ne = .not. handle_eq(a, b)
  end function handle_ne

  elemental logical function group_eq(a, b)
    type(dart_group), intent(in) :: a, b
    group_eq = same_ptr(dartf_group_ptr(a), dartf_group_ptr(b))
  end function group_eq

  elemental logical function group_ne(a, b)
    type(dart_group), intent(in) :: a, b
    group_ne = .not. group_eq(a, b)
  end function group_ne

  elemental logical function lock_eq(a, b)
    type(dart_lock), intent(in) :: a, b
    lock_eq = same_ptr(dartf_lock_ptr(a), dartf_lock_ptr(b))
  end function lock_eq

  elemental logical function lock_ne(a, b)
    type(dart_lock), intent(in) :: a, b
    lock_ne = .not. lock_eq(a, b)
  end function lock_ne

  ! =====================================================================================
  ! Completion of non-blocking transfers
  ! =====================================================================================

  !> Block until the transfer of handle is complete locally and remotely; handle becomes
  !> DART_HANDLE_NULL (a null handle returns at once).
  subroutine dart_wait(handle, stat, errmsg)
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_wait(handle)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_wait', stat, errmsg)
  end subroutine dart_wait

  !> dart_wait for every handle of the array (size(handles) of them).
  subroutine dart_waitall(handles, stat, errmsg)
    type(dart_handle), intent(inout), target, contiguous :: handles(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_waitall(c_loc(handles), size(handles, kind=c_size_t))
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_waitall', stat, errmsg)
  end subroutine dart_waitall

  !> Block until the transfer of handle is complete locally (put: buffer reusable; get:
  !> data arrived); handle becomes DART_HANDLE_NULL.
  subroutine dart_wait_local(handle, stat, errmsg)
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_wait_local(handle)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_wait_local', stat, errmsg)
  end subroutine dart_wait_local

  !> dart_wait_local for every handle of the array.
  subroutine dart_waitall_local(handles, stat, errmsg)
    type(dart_handle), intent(inout), target, contiguous :: handles(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_waitall_local(c_loc(handles), size(handles, kind=c_size_t))
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_waitall_local', stat, errmsg)
  end subroutine dart_waitall_local

  !> is_finished = whether the transfer completed locally and remotely (then the handle
  !> is released and becomes DART_HANDLE_NULL).
  subroutine dart_test(handle, is_finished, stat, errmsg)
    type(dart_handle), intent(inout) :: handle
    logical, intent(inout) :: is_finished
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: r
    rc = c_dart_test(handle, r)
    if (rc == DART_OK) is_finished = r /= 0
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_test', stat, errmsg)
  end subroutine dart_test

  !> is_finished = whether all transfers completed (then all handles are released).
  subroutine dart_testall(handles, is_finished, stat, errmsg)
    type(dart_handle), intent(inout), target, contiguous :: handles(:)
    logical, intent(inout) :: is_finished
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: r
    rc = c_dart_testall(c_loc(handles), size(handles, kind=c_size_t), r)
    if (rc == DART_OK) is_finished = r /= 0
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_testall', stat, errmsg)
  end subroutine dart_testall

  !> result = whether the transfer completed locally (then the handle is released).
  subroutine dart_test_local(handle, result, stat, errmsg)
    type(dart_handle), intent(inout) :: handle
    logical, intent(inout) :: result
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: r
    rc = c_dart_test_local(handle, r)
    if (rc == DART_OK) result = r /= 0
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_test_local', stat, errmsg)
  end subroutine dart_test_local

  !> result = whether all transfers completed locally (then all handles are released).
  subroutine dart_testall_local(handles, result, stat, errmsg)
    type(dart_handle), intent(inout), target, contiguous :: handles(:)
    logical, intent(inout) :: result
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: r
    rc = c_dart_testall_local(c_loc(handles), size(handles, kind=c_size_t), r)
    if (rc == DART_OK) result = r /= 0
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_testall_local', stat, errmsg)
  end subroutine dart_testall_local

  !> Release handle without waiting (the transfer completes at the latest with the next
  !> dart_flush on its segment); handle becomes DART_HANDLE_NULL.
  subroutine dart_handle_free(handle, stat, errmsg)
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_handle_free(handle)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_handle_free', stat, errmsg)
  end subroutine dart_handle_free

  !> Complete (locally and remotely) the calling unit's transfers and accumulates on
  !> gptr's segment towards gptr's unit.
  subroutine dart_flush(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_flush(gptr)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_flush', stat, errmsg)
  end subroutine dart_flush

  !> Like dart_flush, towards every unit of gptr's segment.
  subroutine dart_flush_all(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_flush_all(gptr)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_flush_all', stat, errmsg)
  end subroutine dart_flush_all

  !> Complete locally (buffers reusable / filled) the transfers towards gptr's unit.
  subroutine dart_flush_local(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_flush_local(gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_flush_local', stat, errmsg)
  end subroutine dart_flush_local

  !> Like dart_flush_local, towards every unit of gptr's segment.
  subroutine dart_flush_local_all(gptr, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_flush_local_all(gptr)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_flush_local_all', stat, errmsg)
  end subroutine dart_flush_local_all

  ! =====================================================================================
  ! Collectives without buffers
  ! =====================================================================================

  !> Block until every member of team has entered the barrier.
  subroutine dart_barrier(team, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_barrier(team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_barrier', stat, errmsg)
  end subroutine dart_barrier

  ! =====================================================================================
  ! Datatypes and operations
  ! =====================================================================================

  !> Strided type: blocks of blocklen elements of basetype, starts stride elements apart.
  subroutine dart_type_create_strided_i8(basetype, stride, blocklen, newtype, stat, errmsg)
    integer(DART_DATATYPE_KIND), intent(in) :: basetype
    integer(int64), intent(in) :: stride, blocklen
    integer(DART_DATATYPE_KIND), intent(inout) :: newtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_intptr_t) :: t
    if (stride < 0 .or. blocklen < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_type_create_strided', 'stride and blocklen ' &
        // 'must not be negative', stat, errmsg)
      return
    end if
    rc = c_dart_type_create_strided(basetype, int(stride, c_size_t), int(blocklen, c_size_t), t)
    if (rc == DART_OK) newtype = t
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_type_create_strided', stat, errmsg)
  end subroutine dart_type_create_strided_i8

  subroutine dart_type_create_strided_i4(basetype, stride, blocklen, newtype, stat, errmsg)
    integer(DART_DATATYPE_KIND), intent(in) :: basetype
    integer(int32), intent(in) :: stride, blocklen
    integer(DART_DATATYPE_KIND), intent(inout) :: newtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dart_type_create_strided_i8(basetype, int(stride, int64), int(blocklen, int64), &
                                     newtype, stat, errmsg)
  end subroutine dart_type_create_strided_i4

  !> Indexed type: block i holds blocklen(i) elements of basetype and starts offset(i)
  !> elements (0-based) from the beginning; count = size(blocklen) = size(offset).
  subroutine dart_type_create_indexed_i8(basetype, blocklen, offset, newtype, stat, errmsg)
    integer(DART_DATATYPE_KIND), intent(in) :: basetype
    integer(int64), intent(in) :: blocklen(:), offset(:)
    integer(DART_DATATYPE_KIND), intent(inout) :: newtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_intptr_t) :: t
    integer(c_size_t), allocatable, target :: bl(:), off(:)
    if (size(blocklen) /= size(offset)) then
      call dartf_fail(DART_ERR_INVAL, 'dart_type_create_indexed', 'blocklen and offset ' &
        // 'differ in size', stat, errmsg)
      return
    end if
    if (any(blocklen < 0) .or. any(offset < 0)) then
      call dartf_fail(DART_ERR_INVAL, 'dart_type_create_indexed', 'negative block length ' &
        // 'or offset', stat, errmsg)
      return
    end if
    bl = int(blocklen, c_size_t)
    off = int(offset, c_size_t)
    rc = c_dart_type_create_indexed(basetype, size(bl, kind=c_size_t), c_loc(bl), c_loc(off), t)
    if (rc == DART_OK) newtype = t
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_type_create_indexed', stat, errmsg)
  end subroutine dart_type_create_indexed_i8

  subroutine dart_type_create_indexed_i4(basetype, blocklen, offset, newtype, stat, errmsg)
    integer(DART_DATATYPE_KIND), intent(in) :: basetype
    integer(int32), intent(in) :: blocklen(:), offset(:)
    integer(DART_DATATYPE_KIND), intent(inout) :: newtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dart_type_create_indexed_i8(basetype, int(blocklen, int64), int(offset, int64), &
                                     newtype, stat, errmsg)
  end subroutine dart_type_create_indexed_i4

  !> Contiguous opaque type of num_bytes bytes (e.g. a derived type: storage_size(x)/8).
  subroutine dart_type_create_custom_i8(num_bytes, newtype, stat, errmsg)
    integer(int64), intent(in) :: num_bytes
    integer(DART_DATATYPE_KIND), intent(inout) :: newtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_intptr_t) :: t
    if (num_bytes < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_type_create_custom', 'num_bytes is negative', &
        stat, errmsg)
      return
    end if
    rc = c_dart_type_create_custom(int(num_bytes, c_size_t), t)
    if (rc == DART_OK) newtype = t
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_type_create_custom', stat, errmsg)
  end subroutine dart_type_create_custom_i8

  subroutine dart_type_create_custom_i4(num_bytes, newtype, stat, errmsg)
    integer(int32), intent(in) :: num_bytes
    integer(DART_DATATYPE_KIND), intent(inout) :: newtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dart_type_create_custom_i8(int(num_bytes, int64), newtype, stat, errmsg)
  end subroutine dart_type_create_custom_i4

  !> Release a derived type; dart_type becomes DART_TYPE_UNDEFINED.
  subroutine dart_type_destroy(dart_type, stat, errmsg)
    integer(DART_DATATYPE_KIND), intent(inout) :: dart_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_type_destroy(dart_type)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_type_destroy', stat, errmsg)
  end subroutine dart_type_destroy

  !> A reduction operation from a bind(C) subroutine with the dart_operator interface,
  !> usable in dart_reduce/dart_allreduce with datatype dtype only.
  subroutine dart_op_create(op, userdata, commute, dtype, dtype_is_tmp, new_op, stat, errmsg)
    procedure(dart_operator) :: op
    type(c_ptr), intent(in) :: userdata
    logical, intent(in) :: commute
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    logical, intent(in) :: dtype_is_tmp
    integer(DART_OPERATION_KIND), intent(inout) :: new_op
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_intptr_t) :: o
    rc = c_dart_op_create(c_funloc(op), userdata, logical(commute, c_bool), dtype, &
                          logical(dtype_is_tmp, c_bool), o)
    if (rc == DART_OK) new_op = o
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_op_create', stat, errmsg)
  end subroutine dart_op_create

  !> Release an operation of dart_op_create; op becomes DART_OP_UNDEFINED.
  subroutine dart_op_destroy(op, stat, errmsg)
    integer(DART_OPERATION_KIND), intent(inout) :: op
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_op_destroy(op)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_op_destroy', stat, errmsg)
  end subroutine dart_op_destroy

  ! =====================================================================================
  ! Locks
  ! =====================================================================================

  !> Create a lock for the members of teamid (collective).
  subroutine dart_team_lock_init(teamid, lock, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    type(dart_lock), intent(inout) :: lock
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_lock_init(teamid, lock)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_lock_init', stat, errmsg)
  end subroutine dart_team_lock_init

  !> Destroy a lock (collective; it must not be held); lock becomes DART_LOCK_NULL.
  subroutine dart_team_lock_destroy(lock, stat, errmsg)
    type(dart_lock), intent(inout) :: lock
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_team_lock_destroy(lock)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_lock_destroy', stat, errmsg)
  end subroutine dart_team_lock_destroy

  !> Block until the calling unit holds the lock (FIFO).
  subroutine dart_lock_acquire(lock, stat, errmsg)
    type(dart_lock), intent(in) :: lock
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_lock_acquire(dartf_lock_ptr(lock))
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_lock_acquire', stat, errmsg)
  end subroutine dart_lock_acquire

  !> Take the lock only if it is free: result = whether the calling unit now holds it.
  subroutine dart_lock_try_acquire(lock, result, stat, errmsg)
    type(dart_lock), intent(in) :: lock
    logical, intent(inout) :: result
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: r
    rc = c_dart_lock_try_acquire(dartf_lock_ptr(lock), r)
    if (rc == DART_OK) result = r /= 0
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_lock_try_acquire', stat, errmsg)
  end subroutine dart_lock_try_acquire

  !> Release a lock held by the calling unit.
  subroutine dart_lock_release(lock, stat, errmsg)
    type(dart_lock), intent(in) :: lock
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    rc = c_dart_lock_release(dartf_lock_ptr(lock))
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_lock_release', stat, errmsg)
  end subroutine dart_lock_release

  !> Whether lock refers to a live, initialized lock.
  logical function dart_lock_initialized(lock)
    type(dart_lock), intent(in) :: lock
    dart_lock_initialized = c_dart_lock_initialized(dartf_lock_ptr(lock))
  end function dart_lock_initialized

  ! =====================================================================================
  ! DART-MPI extensions
  ! =====================================================================================

  !> Short text of a return code.
  function dart_strerror(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    s = dartf_c_string(c_dart_strerror(int(code, c_int)))
  end function dart_strerror

  !> Detail message of the last failed C call on this thread (the Fortran layer's own
  !> checks report through errmsg only).
  function dart_error_detail() result(s)
    character(len=:), allocatable :: s
    s = dartf_c_string(c_dart_error_detail())
  end function dart_error_detail

  !> Number of nodes (with DART_UNITS_PER_NODE emulation applied).
  subroutine dart_node_count_i8(nnodes, stat, errmsg)
    integer(int64), intent(inout) :: nnodes
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: n
    rc = c_dart_node_count(n)
    if (rc == DART_OK) nnodes = int(n, int64)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_node_count', stat, errmsg)
  end subroutine dart_node_count_i8

  subroutine dart_node_count_i4(nnodes, stat, errmsg)
    integer(int32), intent(inout) :: nnodes
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(int64) :: n8
    n8 = -1  ! written by the int64 version only on success
    call dart_node_count_i8(n8, stat, errmsg)
    if (n8 >= 0) nnodes = int(n8, int32)
  end subroutine dart_node_count_i4

  !> Node index (0-based) of global unit `unit`.
  subroutine dart_unit_node(unit, node, stat, errmsg)
    integer(DART_UNIT_KIND), intent(in) :: unit
    integer, intent(inout) :: node
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: n
    rc = c_dart_unit_node(unit, n)
    if (rc == DART_OK) node = int(n)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_unit_node', stat, errmsg)
  end subroutine dart_unit_node

  !> The DART_UNITS_PER_NODE emulation factor in force (0 = off).
  subroutine dart_units_per_node_emulation(k, stat, errmsg)
    integer, intent(inout) :: k
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_int32_t) :: v
    rc = c_dart_units_per_node_emulation(v)
    if (rc == DART_OK) k = int(v)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_units_per_node_emulation', stat, errmsg)
  end subroutine dart_units_per_node_emulation

  !> One line describing the runtime configuration.
  function dart_config_string() result(s)
    character(len=:), allocatable :: s
    s = dartf_c_string(c_dart_config_string())
  end function dart_config_string

  !> Version of the DART-MPI library ("major.minor.patch").
  function dart_mpi_version() result(s)
    character(len=:), allocatable :: s
    s = dartf_c_string(c_dart_mpi_version())
  end function dart_mpi_version

  !> Number of cached section datatypes (Fortran layer; for tests and diagnostics).
  integer function dart_section_type_cache_size()
    dart_section_type_cache_size = int(c_dartf_type_cache_size())
  end function dart_section_type_cache_size

  ! =====================================================================================
  ! C-style specifics (address + nelem + datatypes, exactly as in C)
  ! =====================================================================================

  subroutine put_c8(gptr, src, nelem, src_type, dst_type, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target, asynchronous :: src
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_put', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_put(gptr, c_loc(src), int(nelem, c_size_t), src_type, dst_type)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_put', stat, errmsg)
  end subroutine put_c8

  subroutine put_c4(gptr, src, nelem, src_type, dst_type, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target, asynchronous :: src
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call put_c8(gptr, src, int(nelem, c_size_t), src_type, dst_type, stat, errmsg)
  end subroutine put_c4

  subroutine get_c8(dest, gptr, nelem, src_type, dst_type, stat, errmsg)
    type(*), dimension(..), intent(inout), target, asynchronous :: dest
    type(dart_gptr), intent(in) :: gptr
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_get', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_get(c_loc(dest), gptr, int(nelem, c_size_t), src_type, dst_type)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_get', stat, errmsg)
  end subroutine get_c8

  subroutine get_c4(dest, gptr, nelem, src_type, dst_type, stat, errmsg)
    type(*), dimension(..), intent(inout), target, asynchronous :: dest
    type(dart_gptr), intent(in) :: gptr
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_c8(dest, gptr, int(nelem, c_size_t), src_type, dst_type, stat, errmsg)
  end subroutine get_c4

  subroutine put_blocking_c8(gptr, src, nelem, src_type, dst_type, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target :: src
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_put_blocking', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_put_blocking(gptr, c_loc(src), int(nelem, c_size_t), src_type, dst_type)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_put_blocking', stat, errmsg)
  end subroutine put_blocking_c8

  subroutine put_blocking_c4(gptr, src, nelem, src_type, dst_type, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target :: src
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call put_blocking_c8(gptr, src, int(nelem, c_size_t), src_type, dst_type, stat, errmsg)
  end subroutine put_blocking_c4

  subroutine get_blocking_c8(dest, gptr, nelem, src_type, dst_type, stat, errmsg)
    type(*), dimension(..), intent(inout), target :: dest
    type(dart_gptr), intent(in) :: gptr
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_get_blocking', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_get_blocking(c_loc(dest), gptr, int(nelem, c_size_t), src_type, dst_type)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_get_blocking', stat, errmsg)
  end subroutine get_blocking_c8

  subroutine get_blocking_c4(dest, gptr, nelem, src_type, dst_type, stat, errmsg)
    type(*), dimension(..), intent(inout), target :: dest
    type(dart_gptr), intent(in) :: gptr
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_blocking_c8(dest, gptr, int(nelem, c_size_t), src_type, dst_type, stat, errmsg)
  end subroutine get_blocking_c4

  subroutine put_handle_c8(gptr, src, nelem, src_type, dst_type, handle, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target, asynchronous :: src
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_put_handle', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_put_handle(gptr, c_loc(src), int(nelem, c_size_t), src_type, dst_type, handle)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_put_handle', stat, errmsg)
  end subroutine put_handle_c8

  subroutine put_handle_c4(gptr, src, nelem, src_type, dst_type, handle, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target, asynchronous :: src
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call put_handle_c8(gptr, src, int(nelem, c_size_t), src_type, dst_type, handle, stat, &
                         errmsg)
  end subroutine put_handle_c4

  subroutine get_handle_c8(dest, gptr, nelem, src_type, dst_type, handle, stat, errmsg)
    type(*), dimension(..), intent(inout), target, asynchronous :: dest
    type(dart_gptr), intent(in) :: gptr
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_get_handle', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_get_handle(c_loc(dest), gptr, int(nelem, c_size_t), src_type, dst_type, handle)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_get_handle', stat, errmsg)
  end subroutine get_handle_c8

  subroutine get_handle_c4(dest, gptr, nelem, src_type, dst_type, handle, stat, errmsg)
    type(*), dimension(..), intent(inout), target, asynchronous :: dest
    type(dart_gptr), intent(in) :: gptr
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: src_type, dst_type
    type(dart_handle), intent(inout) :: handle
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call get_handle_c8(dest, gptr, int(nelem, c_size_t), src_type, dst_type, handle, stat, &
                         errmsg)
  end subroutine get_handle_c4

  subroutine accumulate_c8(gptr, values, nelem, dtype, op, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target, asynchronous :: values
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_accumulate', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_accumulate(gptr, c_loc(values), int(nelem, c_size_t), dtype, op)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_accumulate', stat, errmsg)
  end subroutine accumulate_c8

  subroutine accumulate_c4(gptr, values, nelem, dtype, op, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target, asynchronous :: values
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call accumulate_c8(gptr, values, int(nelem, c_size_t), dtype, op, stat, errmsg)
  end subroutine accumulate_c4

  subroutine accumulate_blocking_local_c8(gptr, values, nelem, dtype, op, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target :: values
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_accumulate_blocking_local', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_accumulate_blocking_local(gptr, c_loc(values), int(nelem, c_size_t), dtype, op)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_accumulate_blocking_local', stat, errmsg)
  end subroutine accumulate_blocking_local_c8

  subroutine accumulate_blocking_local_c4(gptr, values, nelem, dtype, op, stat, errmsg)
    type(dart_gptr), intent(in) :: gptr
    type(*), dimension(..), intent(in), target :: values
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call accumulate_blocking_local_c8(gptr, values, int(nelem, c_size_t), dtype, op, stat, &
                         errmsg)
  end subroutine accumulate_blocking_local_c4

  subroutine bcast_c8(buf, nelem, dtype, root, team, stat, errmsg)
    type(*), dimension(..), intent(inout), target :: buf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_bcast', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_bcast(c_loc(buf), int(nelem, c_size_t), dtype, int(root, c_int32_t), team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_bcast', stat, errmsg)
  end subroutine bcast_c8

  subroutine bcast_c4(buf, nelem, dtype, root, team, stat, errmsg)
    type(*), dimension(..), intent(inout), target :: buf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call bcast_c8(buf, int(nelem, c_size_t), dtype, root, team, stat, errmsg)
  end subroutine bcast_c4

  subroutine scatter_c8(sendbuf, recvbuf, nelem, dtype, root, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_scatter', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_scatter(c_loc(sendbuf), c_loc(recvbuf), int(nelem, c_size_t), dtype, int(root, c_int32_t), &
                        team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_scatter', stat, errmsg)
  end subroutine scatter_c8

  subroutine scatter_c4(sendbuf, recvbuf, nelem, dtype, root, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call scatter_c8(sendbuf, recvbuf, int(nelem, c_size_t), dtype, root, team, stat, errmsg)
  end subroutine scatter_c4

  subroutine gather_c8(sendbuf, recvbuf, nelem, dtype, root, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_gather', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_gather(c_loc(sendbuf), c_loc(recvbuf), int(nelem, c_size_t), dtype, int(root, c_int32_t), &
                       team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_gather', stat, errmsg)
  end subroutine gather_c8

  subroutine gather_c4(sendbuf, recvbuf, nelem, dtype, root, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call gather_c8(sendbuf, recvbuf, int(nelem, c_size_t), dtype, root, team, stat, errmsg)
  end subroutine gather_c4

  subroutine allgather_c8(sendbuf, recvbuf, nelem, dtype, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_allgather', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_allgather(c_loc(sendbuf), c_loc(recvbuf), int(nelem, c_size_t), dtype, team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_allgather', stat, errmsg)
  end subroutine allgather_c8

  subroutine allgather_c4(sendbuf, recvbuf, nelem, dtype, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call allgather_c8(sendbuf, recvbuf, int(nelem, c_size_t), dtype, team, stat, errmsg)
  end subroutine allgather_c4

  subroutine reduce_c8(sendbuf, recvbuf, nelem, dtype, op, root, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_reduce', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_reduce(c_loc(sendbuf), c_loc(recvbuf), int(nelem, c_size_t), dtype, op, &
                       int(root, c_int32_t), team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_reduce', stat, errmsg)
  end subroutine reduce_c8

  subroutine reduce_c4(sendbuf, recvbuf, nelem, dtype, op, root, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer, intent(in) :: root
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call reduce_c8(sendbuf, recvbuf, int(nelem, c_size_t), dtype, op, root, team, stat, errmsg)
  end subroutine reduce_c4

  subroutine allreduce_c8(sendbuf, recvbuf, nelem, dtype, op, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_allreduce', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_allreduce(c_loc(sendbuf), c_loc(recvbuf), int(nelem, c_size_t), dtype, op, team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_allreduce', stat, errmsg)
  end subroutine allreduce_c8

  subroutine allreduce_c4(sendbuf, recvbuf, nelem, dtype, op, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_OPERATION_KIND), intent(in) :: op
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call allreduce_c8(sendbuf, recvbuf, int(nelem, c_size_t), dtype, op, team, stat, errmsg)
  end subroutine allreduce_c4

  subroutine alltoall_c8(sendbuf, recvbuf, nelem, dtype, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_alltoall', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_alltoall(c_loc(sendbuf), c_loc(recvbuf), int(nelem, c_size_t), dtype, team)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_alltoall', stat, errmsg)
  end subroutine alltoall_c8

  subroutine alltoall_c4(sendbuf, recvbuf, nelem, dtype, team, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call alltoall_c8(sendbuf, recvbuf, int(nelem, c_size_t), dtype, team, stat, errmsg)
  end subroutine alltoall_c4

  subroutine send_c8(sendbuf, nelem, dtype, tag, unit, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: tag, unit
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_send', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_send(c_loc(sendbuf), int(nelem, c_size_t), dtype, int(tag, c_int), int(unit, c_int32_t))
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_send', stat, errmsg)
  end subroutine send_c8

  subroutine send_c4(sendbuf, nelem, dtype, tag, unit, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: tag, unit
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call send_c8(sendbuf, int(nelem, c_size_t), dtype, tag, unit, stat, errmsg)
  end subroutine send_c4

  subroutine recv_c8(recvbuf, nelem, dtype, tag, unit, stat, errmsg)
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: tag, unit
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_recv', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_recv(c_loc(recvbuf), int(nelem, c_size_t), dtype, int(tag, c_int), int(unit, c_int32_t))
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_recv', stat, errmsg)
  end subroutine recv_c8

  subroutine recv_c4(recvbuf, nelem, dtype, tag, unit, stat, errmsg)
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(int32), intent(in) :: nelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    integer, intent(in) :: tag, unit
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call recv_c8(recvbuf, int(nelem, c_size_t), dtype, tag, unit, stat, errmsg)
  end subroutine recv_c4

  subroutine allgatherv_c8(sendbuf, nsendelem, dtype, recvbuf, nrecvelem, recvdispls, teamid, &
                           stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    integer(c_size_t), intent(in) :: nsendelem
    integer(DART_DATATYPE_KIND), intent(in) :: dtype
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in), target, contiguous :: nrecvelem(:), recvdispls(:)
    integer(DART_TEAM_KIND), intent(in) :: teamid
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    integer(c_size_t) :: nunits
    rc = c_dart_team_size(teamid, nunits)
    if (rc == DART_OK) then
      if (size(nrecvelem, kind=c_size_t) < nunits .or. &
          size(recvdispls, kind=c_size_t) < nunits) then
        call dartf_fail(DART_ERR_INVAL, 'dart_allgatherv', 'nrecvelem and recvdispls need ' &
          // 'one entry per team unit', stat, errmsg)
        return
      end if
      if (nsendelem < 0 .or. any(nrecvelem(1:nunits) < 0) .or. &
          any(recvdispls(1:nunits) < 0)) then
        call dartf_fail(DART_ERR_INVAL, 'dart_allgatherv', 'nsendelem, nrecvelem and ' &
          // 'recvdispls must not be negative', stat, errmsg)
        return
      end if
    end if
    rc = c_dart_allgatherv(c_loc(sendbuf), nsendelem, dtype, c_loc(recvbuf), c_loc(nrecvelem), &
                           c_loc(recvdispls), teamid)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_allgatherv', stat, errmsg)
  end subroutine allgatherv_c8

  subroutine sendrecv_c8(sendbuf, send_nelem, send_dtype, send_tag, dest, recvbuf, recv_nelem, &
                         recv_dtype, recv_tag, src, stat, errmsg)
    type(*), dimension(..), intent(in), target :: sendbuf
    integer(c_size_t), intent(in) :: send_nelem
    integer(DART_DATATYPE_KIND), intent(in) :: send_dtype
    integer, intent(in) :: send_tag, dest
    type(*), dimension(..), intent(inout), target :: recvbuf
    integer(c_size_t), intent(in) :: recv_nelem
    integer(DART_DATATYPE_KIND), intent(in) :: recv_dtype
    integer, intent(in) :: recv_tag, src
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    if (send_nelem < 0 .or. recv_nelem < 0) then
      call dartf_fail(DART_ERR_INVAL, 'dart_sendrecv', 'nelem is negative', stat, errmsg)
      return
    end if
    rc = c_dart_sendrecv(c_loc(sendbuf), send_nelem, send_dtype, int(send_tag, c_int), &
                         int(dest, c_int32_t), c_loc(recvbuf), recv_nelem, recv_dtype, &
                         int(recv_tag, c_int), int(src, c_int32_t))
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_sendrecv', stat, errmsg)
  end subroutine sendrecv_c8

end module dart
