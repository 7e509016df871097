! SPDX-License-Identifier: BSD-3-Clause
! dart_f_base: the error path shared by every wrapper of the Fortran module (private to the
! library).
!
! Every wrapper ends with
!     if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, "dart_xxx", stat, errmsg)
! so that the fast path of a successful call without `stat` costs one comparison.
! dartf_finish sets `stat`; on failure it fills `errmsg` ("dart_xxx: <detail>") or, when
! `stat` is absent, prints "DART error on unit <id>: dart_xxx: <detail>" to error_unit and
! aborts the whole job through dart_abort (MPI_Abort), never with a bare `error stop`,
! which would end one process and leave the others waiting.
module dart_f_base
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit, int64
  use mpi_f08, only: MPI_Initialized, MPI_Finalized, MPI_Comm_rank, MPI_COMM_WORLD
  use dart_c_binding
  implicit none
  private

  public :: dartf_finish, dartf_fail, dartf_die, dartf_c_string
  public :: dartf_local_address, dartf_pause, dartf_layout, dartf_layout_done

  !> Dimensions dartf_layout passes to the layout engine: Fortran's 15 and the (re, im)
  !> dimension of a complex element.
  integer(c_int), parameter :: DARTF_MAX_DIMS = 16

contains

  !> A Fortran string from a NUL-terminated C string (empty for a null pointer).
  function dartf_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    call c_f_pointer(p, chars, [huge(0)])
    n = 0
    do while (chars(n + 1) /= c_null_char)
      n = n + 1
    end do
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function dartf_c_string

  !> The text of a failure: "<fname>: <detail>", where a detail that already starts with
  !> "<fname>: " is not prefixed twice.
  function failure_text(rc, fname, detail) result(text)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: fname, detail
    character(len=:), allocatable :: text
    character(len=:), allocatable :: d
    d = detail
    if (len(d) == 0) d = dartf_c_string(c_dart_strerror(rc))
    if (len(d) >= len(fname) + 2) then
      if (d(1:len(fname) + 2) == fname // ': ') d = d(len(fname) + 3:)
    end if
    text = fname // ': ' // d
  end function failure_text

  !> Finish a wrapper: set stat, and on failure set errmsg or abort the job.
  !> `msg` (a Fortran-layer message) replaces the detail text when present; otherwise the
  !> detail is the core's, dart_error_detail().
  subroutine dartf_finish(rc, fname, stat, errmsg, msg)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: fname
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=*), intent(in), optional :: msg
    character(len=:), allocatable :: text
    if (present(stat)) stat = int(rc)
    if (rc == DART_OK) return
    if (present(msg)) then
      text = failure_text(rc, fname, msg)
    else
      text = failure_text(rc, fname, dartf_c_string(c_dart_error_detail()))
    end if
    if (present(errmsg)) errmsg = text
    if (.not. present(stat)) call dartf_die(text)
  end subroutine dartf_finish

  !> A failure found by the Fortran layer itself (no C call made).
  subroutine dartf_fail(rc, fname, msg, stat, errmsg)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: fname, msg
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call dartf_finish(rc, fname, stat, errmsg, msg=msg)
  end subroutine dartf_fail

  !> Print "DART error on unit <id>: <text>" to error_unit and abort the whole job.
  subroutine dartf_die(text)
    character(len=*), intent(in) :: text
    integer(c_int32_t) :: me
    integer :: rank, ierr
    logical :: mpi_up, mpi_down
    character(len=16) :: who
    who = '?'
    if (c_dart_myid(me) == DART_OK) then
      write(who, '(i0)') me
    else
      ! DART is not initialized; units are MPI_COMM_WORLD ranks if MPI runs.
      call MPI_Initialized(mpi_up, ierr)
      call MPI_Finalized(mpi_down, ierr)
      if (mpi_up .and. .not. mpi_down) then
        call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
        if (ierr == 0) write(who, '(i0)') rank
      end if
    end if
    flush(output_unit)
    write(error_unit, '(a)') 'DART error on unit ' // trim(who) // ': ' // text
    flush(error_unit)
    ! Give the launcher a moment to forward the message: MPICH's hydra tears the job down
    ! at MPI_Abort and sometimes drops what is still in the stderr pipe (seen in tests).
    call dartf_pause(0.3)
    call c_dart_abort(int(DART_EXIT_ABORT, c_int))
  end subroutine dartf_die

  !> Wait about `seconds` (wall clock), without any library call beyond system_clock.
  subroutine dartf_pause(seconds)
    real, intent(in) :: seconds
    integer(int64) :: t0, t, rate
    call system_clock(t0, rate)
    if (rate <= 0) return
    do
      call system_clock(t)
      if (real(t - t0) / real(rate) >= seconds) exit
    end do
  end subroutine dartf_pause

  !> The slow path of the one-sided wrappers (a section, or an explicit remote type):
  !> the buffer's address, element count and DART datatype, from the core's layout engine
  !> (dart_type_from_layout) given the dimensions of the array descriptor (dartf_descriptor,
  !> in C). Hand the type back with dartf_layout_done after the call that uses it. On
  !> failure the call is finished here under `fname` (stat, errmsg or abort) and the code
  !> returned. Kept out of the typed wrappers so that their fast path keeps a small stack
  !> frame: the Fortran-to-C descriptor conversion of a type(*), dimension(..) argument
  !> needs a large temporary, which lives in this frame only. The buffer is passed by
  !> descriptor all the way (no copy).
  function dartf_layout(buf, base, parts, fname, addr, nelem, dtype, stat, errmsg) result(rc)
    type(*), dimension(..), intent(in) :: buf
    integer(c_intptr_t), intent(in) :: base
    integer, intent(in) :: parts
    character(len=*), intent(in) :: fname
    type(c_ptr), intent(inout) :: addr
    integer(c_size_t), intent(inout) :: nelem
    integer(c_intptr_t), intent(inout) :: dtype
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc, nd
    integer(c_size_t) :: extents(DARTF_MAX_DIMS)
    integer(c_ptrdiff_t) :: strides(DARTF_MAX_DIMS)
    nd = c_dartf_descriptor(buf, int(parts, c_int), addr, extents, strides, DARTF_MAX_DIMS)
    if (nd < 0) then
      ! Descriptors the layout engine cannot be given (found by this layer).
      rc = DART_ERR_INVAL
      select case (nd)
      case (-1)
        call dartf_finish(rc, fname, stat, errmsg, msg='assumed-size arrays have no size; ' &
                          // 'pass a section with an upper bound')
      case (-2)
        call dartf_finish(rc, fname, stat, errmsg, msg='a stride of the array is not a ' &
                          // 'multiple of its element size')
      case default
        call dartf_finish(rc, fname, stat, errmsg, msg='the array has too many dimensions')
      end select
      return
    end if
    rc = c_dart_type_from_layout(base, nd, extents, strides, dtype, nelem)
    if (rc /= DART_OK) call dartf_finish(rc, fname, stat, errmsg)
  end function dartf_layout

  !> Hand back the type of dartf_layout after the call that used it (an operation it
  !> started completes normally). A failing release turns a successful rc into its code.
  subroutine dartf_layout_done(dtype, rc)
    integer(c_intptr_t), intent(in) :: dtype
    integer(c_int), intent(inout) :: rc
    integer(c_int) :: rc_release
    rc_release = c_dart_type_layout_release(dtype)
    if (rc == DART_OK) rc = rc_release
  end subroutine dartf_layout_done

  !> The address dart_local associates a pointer with: checks the rank of the shape, that
  !> the unit is the caller (dart_gptr_getaddr) or on its node (dart_gptr_getaddr_node),
  !> that the shape fits the unit's part of the segment after gptr's offset, and the
  !> alignment. Finishes the call (stat, errmsg, abort) like every wrapper.
  function dartf_local_address(gptr, shape, ptr_rank, elem, align, p, stat, errmsg) result(rc)
    type(dart_gptr), intent(in) :: gptr
    integer(int64), intent(in) :: shape(:)
    integer, intent(in) :: ptr_rank
    integer(c_size_t), intent(in) :: elem, align
    type(c_ptr), intent(out) :: p
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int) :: rc
    character(len=*), parameter :: fn = 'dart_local'
    character(len=200) :: line
    integer(c_int32_t) :: unit, flags, me
    integer(c_int16_t) :: segid, teamid
    integer(c_int64_t) :: offset
    integer(c_size_t) :: seg_bytes, need, avail
    integer :: i
    p = c_null_ptr
    if (size(shape) /= ptr_rank) then
      write(line, '(a,i0,a,i0)') 'size(shape) = ', size(shape), ' differs from the rank of ptr, ', &
        ptr_rank
      rc = DART_ERR_INVAL
      call dartf_finish(rc, fn, stat, errmsg, msg=trim(line))
      return
    end if
    if (any(shape < 0)) then
      rc = DART_ERR_INVAL
      call dartf_finish(rc, fn, stat, errmsg, msg='negative extent in shape')
      return
    end if
    rc = c_dart_gptr_fields(gptr, unit, flags, segid, teamid, offset)
    if (rc == DART_OK) rc = c_dart_team_myid(teamid, me)
    if (rc == DART_OK) then
      if (unit == me) then
        rc = c_dart_gptr_getaddr(gptr, p)
      else
        rc = c_dart_gptr_getaddr_node(gptr, p)
      end if
    end if
    if (rc == DART_OK) rc = c_dart_gptr_segment_size(gptr, seg_bytes)
    if (rc /= DART_OK) then
      p = c_null_ptr
      call dartf_finish(rc, fn, stat, errmsg)
      return
    end if
    ! bytes needed, without overflow
    need = elem
    do i = 1, size(shape)
      if (shape(i) /= 0 .and. need > huge(need) / shape(i)) then
        need = huge(need)
      else
        need = need * shape(i)
      end if
    end do
    avail = 0
    if (offset >= 0 .and. offset <= seg_bytes) avail = seg_bytes - offset
    if (need > avail) then
      write(line, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'the shape needs ', need, ' bytes but unit ', &
        unit, ' has ', avail, ' bytes of segment ', segid, ' from offset ', offset
      p = c_null_ptr
      rc = DART_ERR_INVAL
      call dartf_finish(rc, fn, stat, errmsg, msg=trim(line))
      return
    end if
    if (mod(transfer(p, 0_c_intptr_t), int(align, c_intptr_t)) /= 0) then
      write(line, '(a,i0,a)') 'the address at gptr is not aligned to ', align, &
        ' bytes, as the element type needs'
      p = c_null_ptr
      rc = DART_ERR_INVAL
      call dartf_finish(rc, fn, stat, errmsg, msg=trim(line))
      return
    end if
    if (present(stat)) stat = DART_OK
  end function dartf_local_address

end module dart_f_base
