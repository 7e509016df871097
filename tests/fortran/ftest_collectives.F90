! SPDX-License-Identifier: BSD-3-Clause
! ftest_collectives: barrier, bcast, scatter, gather, allgather, allgatherv, reduce,
! allreduce (predefined operations, DART_OP_MINMAX, a user operation from Fortran),
! alltoall, send / recv / sendrecv, typed and C-style, good and bad input. The body runs on
! DART_TEAM_ALL and on a one-unit team; bad input is the same on every unit (or, for the
! root-only checks, tested on the one-unit team), so no unit is left waiting.
program ftest_collectives
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use, intrinsic :: iso_c_binding
  use dart
  use ftest
  implicit none
  integer(DART_TEAM_KIND) :: solo

  call ftest_start('ftest_collectives')
  call ftest_section('team all')
  call body(DART_TEAM_ALL, .false.)
  solo = ftest_solo_team()
  call ftest_section('one-unit team')
  call body(solo, .true.)
  call dart_team_destroy(solo)
  call ftest_section('two-sided')
  call two_sided()
  call ftest_section('user operation')
  call user_op()
  call ftest_finish()

contains

  subroutine body(team, alone)
    integer(DART_TEAM_KIND), intent(in) :: team
    logical, intent(in) :: alone
    integer :: tme, tsize, st, i, j, root
    character(len=256) :: msg
    real(real64), target :: a(3, 4), abuf(3, 4)
    integer(int8) :: b8
    integer(int32), target :: iv(6)
    integer(int64), allocatable :: s64(:), r64(:)
    complex(real32), allocatable :: zs(:), zr(:)
    real(real32) :: f3(3)
    real(real32), allocatable :: fall(:)
    integer(int16) :: h2(2, 2)
    integer(int16), allocatable :: hall(:, :, :)
    real(real64), allocatable :: vs(:), vr(:), mm(:), mmr(:)
    integer, allocatable :: cnt(:), dsp(:)
    integer(int64), allocatable :: cnt8(:), dsp8(:)
    integer(c_size_t), allocatable, target :: cntc(:), dspc(:)
    integer(int32), allocatable :: isend(:), irecv(:)
    complex(real64) :: zz(2), zzr(2)
    integer(int32) :: bits, bitsr

    call dart_team_myid(team, tme)
    call dart_team_size(team, tsize)
    root = tsize - 1

    call dart_barrier(team, stat=st)
    call check_ok(st, 'dart_barrier')

    ! -- bcast ---------------------------------------------------------------------------
    a = 0
    if (tme == root) a = reshape([(real(i, real64) / 8, i = 1, 12)], [3, 4])
    call dart_bcast(a, root, team, stat=st)
    call check(st == DART_OK .and. all(a == reshape([(real(i, real64) / 8, i = 1, 12)], [3, 4])), &
               'bcast of a 3x4 real64 array')
    b8 = 0
    if (tme == root) b8 = 42
    call dart_bcast(b8, root, team, stat=st)
    call check(st == DART_OK .and. b8 == 42, 'bcast of an int8 scalar')
    ! a row section: the compiler copies it in and out around the blocking call
    abuf = -1
    if (tme == root) abuf(2, :) = [1, 2, 3, 4]
    call dart_bcast(abuf(2, :), root, team, stat=st)
    call check(st == DART_OK .and. all(abuf(2, :) == [1, 2, 3, 4]) .and. &
               all(abuf([1, 3], :) == -1), 'bcast of a row section')
    iv = 0
    if (tme == root) iv = [(7 * i, i = 1, 6)]
    call dart_bcast(iv, 6, DART_TYPE_INT, root, team, stat=st)
    call check(st == DART_OK .and. all(iv == [(7 * i, i = 1, 6)]), 'C-style bcast (default nelem)')
    iv = 0
    if (tme == root) iv(1:3) = 5
    call dart_bcast(iv, 3_c_size_t, DART_TYPE_INT, root, team, stat=st)
    call check(st == DART_OK .and. all(iv(1:3) == 5) .and. all(iv(4:) == 0), &
               'C-style bcast of 3 of 6 elements')
    call dart_bcast(a, tsize, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_bcast', 'root', 'bcast with root = size')
    call dart_bcast(a, 0, 1234_DART_TEAM_KIND, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_NOTFOUND, msg, 'dart_bcast', 'does not exist', &
                    'bcast on an unknown team')

    ! -- scatter -------------------------------------------------------------------------
    allocate(s64(2 * tsize), r64(2))
    s64 = [(1000_int64 * (i / 2) + i, i = 0, 2 * tsize - 1)]
    r64 = -1
    call dart_scatter(s64, r64, root, team, stat=st)
    call check(st == DART_OK .and. all(r64 == [1000_int64 * tme + 2 * tme, &
               1000_int64 * tme + 2 * tme + 1]), 'scatter of int64 blocks')
    allocate(zs(tsize), zr(1))
    zs = [(cmplx(i, -i, real32), i = 0, tsize - 1)]
    call dart_scatter(zs, zr, 0, team, stat=st)
    call check(st == DART_OK .and. zr(1) == cmplx(tme, -tme, real32), 'scatter of complex(real32)')
    r64 = -1
    call dart_scatter(s64, r64, 2, DART_TYPE_LONGLONG, root, team, stat=st)
    call check(st == DART_OK .and. r64(1) == 1000_int64 * tme + 2 * tme, 'C-style scatter')
    call dart_scatter(s64, r64, -1, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_scatter', 'root', 'scatter with root -1')
    if (alone) then
      call dart_scatter(s64(1:1), r64, 0, team, stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_scatter', 'sendbuf on root', &
                      'scatter from a too small sendbuf')
    end if

    ! -- gather --------------------------------------------------------------------------
    f3 = [(real(10 * tme + i, real32), i = 1, 3)]
    allocate(fall(3 * tsize))
    fall = -1
    call dart_gather(f3, fall, root, team, stat=st)
    if (tme == root) then
      call check(st == DART_OK .and. all(fall == [((real(10 * j + i, real32), i = 1, 3), &
                 j = 0, tsize - 1)]), 'gather of real32 triples')
    else
      call check_ok(st, 'gather (not root)')
    end if
    fall = -1
    call dart_gather(f3, fall, 3, DART_TYPE_FLOAT, 0, team, stat=st)
    if (tme == 0) call check(st == DART_OK .and. fall(1) == 1, 'C-style gather')
    if (alone) then
      call dart_gather(f3, fall(1:2), 0, team, stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_gather', 'recvbuf on root', &
                      'gather into a too small recvbuf')
    end if

    ! -- allgather -----------------------------------------------------------------------
    h2 = reshape(int([(100 * tme + i, i = 1, 4)], int16), [2, 2])
    allocate(hall(2, 2, tsize))
    call dart_allgather(h2, hall, team, stat=st)
    do j = 1, tsize
      call check(st == DART_OK .and. all(hall(:, :, j) == reshape(int([(100 * (j - 1) + i, &
                 i = 1, 4)], int16), [2, 2])), 'allgather of int16 2x2 blocks')
    end do
    hall = 0
    call dart_allgather(h2, hall, 4_c_size_t, DART_TYPE_SHORT, team, stat=st)
    call check(st == DART_OK .and. all(hall(:, :, tsize) == reshape(int([(100 * (tsize - 1) + i, &
               i = 1, 4)], int16), [2, 2])), 'C-style allgather')
    call dart_allgather(h2, hall(:, :, 1:1), team, stat=st, errmsg=msg)
    if (tsize > 1) call check_stat(st, DART_ERR_INVAL, msg, 'dart_allgather', 'recvbuf', &
                                   'allgather into a too small recvbuf')

    ! -- allgatherv: unit i contributes i+1 elements -----------------------------------
    allocate(vs(tme + 1), vr(tsize * (tsize + 1) / 2), cnt(tsize), dsp(tsize))
    vs = [(100.0_real64 * tme + i, i = 1, tme + 1)]
    cnt = [(i, i = 1, tsize)]
    dsp = [(i * (i - 1) / 2, i = 1, tsize)]
    vr = -1
    call dart_allgatherv(vs, vr, cnt, dsp, team, stat=st)
    call check(st == DART_OK .and. all(vr == [((100.0_real64 * j + i, i = 1, j + 1), &
               j = 0, tsize - 1)]), 'allgatherv (default integer counts)')
    cnt8 = cnt
    dsp8 = dsp
    vr = -1
    call dart_allgatherv(vs, vr, cnt8, dsp8, team, stat=st)
    call check(st == DART_OK .and. vr(size(vr)) == 100.0_real64 * (tsize - 1) + tsize, &
               'allgatherv (int64 counts)')
    cntc = cnt
    dspc = dsp
    vr = -1
    call dart_allgatherv(vs, int(tme + 1, c_size_t), DART_TYPE_DOUBLE, vr, cntc, dspc, team, &
                         stat=st)
    call check(st == DART_OK .and. vr(1) == 1, 'C-style allgatherv')
    cntc(tsize) = -1  ! every unit passes the same bad counts: all return, none waits
    call dart_allgatherv(vs, int(tme + 1, c_size_t), DART_TYPE_DOUBLE, vr, cntc, dspc, team, &
                         stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allgatherv', 'must not be negative', &
                    'C-style allgatherv with a negative count')
    cntc = cnt
    call dart_allgatherv(vs, -1_c_size_t, DART_TYPE_DOUBLE, vr, cntc, dspc, team, &
                         stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allgatherv', 'must not be negative', &
                    'C-style allgatherv with a negative nsendelem')
    call dart_allgatherv(vs, vr, cnt(1:tsize - 1), dsp, team, stat=st, errmsg=msg)
    if (tsize > 1) call check_stat(st, DART_ERR_INVAL, msg, 'dart_allgatherv', &
                                   'one entry per team unit', 'allgatherv with short counts')
    dsp(tsize) = dsp(tsize) + 1
    call dart_allgatherv(vs, vr, cnt, dsp, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allgatherv', 'past the end', &
                    'allgatherv past the end of recvbuf')

    ! -- reduce / allreduce ------------------------------------------------------------
    allocate(isend(4), irecv(4))
    isend = [(tme + i, i = 1, 4)]
    irecv = 0
    call dart_reduce(isend, irecv, DART_OP_SUM, root, team, stat=st)
    if (tme == root) then
      call check(st == DART_OK .and. all(irecv == [(tsize * i + tsize * (tsize - 1) / 2, &
                 i = 1, 4)]), 'reduce SUM of int32')
    else
      call check_ok(st, 'reduce (not root)')
    end if
    call dart_allreduce(real(isend, real64), abuf(1, :), DART_OP_MAX, team, stat=st)
    call check(st == DART_OK .and. all(abuf(1, :) == [(real(tsize - 1 + i, real64), i = 1, 4)]), &
               'allreduce MAX into a row section')
    call dart_allreduce(int(isend, int64), r64(1:2), DART_OP_MIN, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allreduce', 'smaller', &
                    'allreduce into a too small recvbuf')
    bits = shiftl(1, tme)
    call dart_allreduce(bits, bitsr, DART_OP_BOR, team, stat=st)
    call check(st == DART_OK .and. bitsr == 2**tsize - 1, 'allreduce BOR')
    zz = [cmplx(tme, 1, real64), cmplx(-tme, 2, real64)]
    call dart_allreduce(zz, zzr, DART_OP_SUM, team, stat=st)
    call check(st == DART_OK .and. zzr(1) == cmplx(tsize * (tsize - 1) / 2, tsize, real64) .and. &
               zzr(2) == cmplx(-tsize * (tsize - 1) / 2, 2 * tsize, real64), &
               'allreduce SUM of complex(real64)')
    call dart_allreduce(zz, zzr, DART_OP_PROD, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allreduce', 'DART_OP_SUM only', &
                    'allreduce PROD of complex')
    call dart_reduce(zz, zzr, DART_OP_MAX, 0, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_reduce', 'DART_OP_SUM only', &
                    'reduce MAX of complex')
    ! MINMAX on (min, max) pairs
    mm = [real(tme, real64), real(tme, real64), real(-tme, real64), real(-tme, real64)]
    allocate(mmr(4))
    call dart_allreduce(mm, mmr, DART_OP_MINMAX, team, stat=st)
    call check(st == DART_OK .and. all(mmr == [0.0_real64, real(tsize - 1, real64), &
               real(1 - tsize, real64), 0.0_real64]), 'allreduce MINMAX')
    call dart_allreduce(mm, mmr, 4_c_size_t, DART_TYPE_DOUBLE, DART_OP_SUM, team, stat=st)
    call check(st == DART_OK .and. mmr(1) == tsize * (tsize - 1) / 2, 'C-style allreduce')
    irecv = 0
    call dart_reduce(isend, irecv, 4, DART_TYPE_INT, DART_OP_MAX, 0, team, stat=st)
    if (tme == 0) call check(st == DART_OK .and. all(irecv == [(tsize - 1 + i, i = 1, 4)]), &
                             'C-style reduce MAX')
    call dart_allreduce(isend, irecv, DART_OP_UNDEFINED, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allreduce', '', 'allreduce DART_OP_UNDEFINED')
    call dart_reduce(isend, irecv, DART_OP_SUM, tsize, team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_reduce', 'root', 'reduce with root = size')
    if (alone) then
      call dart_reduce(isend, irecv(1:2), DART_OP_SUM, 0, team, stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_reduce', 'recvbuf on root', &
                      'reduce into a too small recvbuf')
    end if

    ! -- alltoall: block j of unit i is [100*i + j] ------------------------------------
    deallocate(isend, irecv)
    allocate(isend(2 * tsize), irecv(2 * tsize))
    isend = [((100 * tme + j, i = 1, 2), j = 0, tsize - 1)]
    irecv = -1
    call dart_alltoall(isend, irecv, team, stat=st)
    call check(st == DART_OK .and. all(irecv == [((100 * j + tme, i = 1, 2), j = 0, tsize - 1)]), &
               'alltoall of int32 pairs')
    irecv = -1
    call dart_alltoall(isend, irecv, 2, DART_TYPE_INT, team, stat=st)
    call check(st == DART_OK .and. irecv(1) == tme, 'C-style alltoall')
    if (tsize > 1) then
      call dart_alltoall(isend(1:2 * tsize - 1), irecv, team, stat=st, errmsg=msg)
      call check_stat(st, DART_ERR_INVAL, msg, 'dart_alltoall', 'multiple', &
                      'alltoall of a size that is not a multiple of the team size')
    end if
    call dart_alltoall(isend, irecv(1:1), team, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_alltoall', 'smaller', &
                    'alltoall into a too small recvbuf')
    call dart_barrier(team)
  end subroutine body

  ! ---------------------------------------------------------------------------------
  subroutine two_sided()
    integer :: st, right, left, i
    integer(int64) :: x(5), y(5)
    real(real32), target :: s(3), r(3)
    character(len=256) :: msg
    right = mod(me + 1, nunits)
    left = mod(me - 1 + nunits, nunits)
    x = [(10_int64 * me + i, i = 1, 5)]
    y = -1
    call dart_sendrecv(x, 7, right, y, 7, left, stat=st)
    call check(st == DART_OK .and. all(y == [(10_int64 * left + i, i = 1, 5)]), &
               'sendrecv in a ring (int64)')
    s = real(me, real32)
    r = -1
    call dart_sendrecv(s, 3_c_size_t, DART_TYPE_FLOAT, 8, right, r, 3_c_size_t, DART_TYPE_FLOAT, &
                       8, left, stat=st)
    call check(st == DART_OK .and. all(r == real(left, real32)), 'C-style sendrecv')
    if (nunits >= 2) then
      if (me == 0) then
        call dart_send(x, 11, 1, stat=st)
        call check_ok(st, 'dart_send')
        call dart_send(s, 3, DART_TYPE_FLOAT, 12, 1, stat=st)
        call check_ok(st, 'C-style dart_send')
      else if (me == 1) then
        y = -1
        call dart_recv(y, 11, 0, stat=st)
        call check(st == DART_OK .and. all(y == [(int(i, int64), i = 1, 5)]), 'dart_recv')
        r = -1
        call dart_recv(r, 3_c_size_t, DART_TYPE_FLOAT, 12, 0, stat=st)
        call check(st == DART_OK .and. all(r == 0), 'C-style dart_recv')
      end if
    end if
    call dart_send(x, 1, nunits, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_send', 'out of range', 'send to unit size')
    call dart_recv(y, 1, nunits + 3, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_recv', 'out of range', 'recv from unit size+3')
    call dart_sendrecv(x, 1, nunits, y, 1, left, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_sendrecv', 'out of range', &
                    'sendrecv to unit size')
    call dart_send(x, -1, DART_TYPE_LONGLONG, 1, 0, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_send', 'negative', 'C-style send of -1 elements')
    call dart_barrier(DART_TEAM_ALL)
  end subroutine two_sided

  ! ---------------------------------------------------------------------------------
  ! A user reduction written in Fortran: element-wise maximum of absolute values.
  subroutine absmax(invec, inoutvec, len, userdata) bind(C)
    type(c_ptr), value :: invec, inoutvec
    integer(c_size_t), value :: len
    type(c_ptr), value :: userdata
    real(real64), pointer :: a(:), b(:)
    integer, pointer :: calls
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b))
    if (c_associated(userdata)) then
      call c_f_pointer(userdata, calls)
      calls = calls + 1
    end if
  end subroutine absmax

  subroutine user_op()
    integer(DART_OPERATION_KIND) :: op, tmp
    integer, target :: calls
    integer :: total_calls
    real(real64) :: v(3), r(3)
    integer :: st, ia(3), ib(3)
    character(len=256) :: msg
    calls = 0
    call dart_op_create(absmax, c_loc(calls), .true., DART_TYPE_DOUBLE, .false., op, stat=st)
    call check_ok(st, 'dart_op_create')
    v = [real(-me, real64), real(me, real64) / 2, 3.0_real64]
    call dart_allreduce(v, r, op, DART_TEAM_ALL, stat=st)
    call check(st == DART_OK .and. all(r == [real(nunits - 1, real64), &
               real(nunits - 1, real64) / 2, 3.0_real64]), 'allreduce with a Fortran operation')
    call dart_allreduce(calls, total_calls, DART_OP_SUM, DART_TEAM_ALL)
    if (nunits > 1) call check(total_calls > 0, 'the operation was called')
    r = 0
    call dart_reduce(v, r, op, 0, DART_TEAM_ALL, stat=st)
    if (me == 0) call check(st == DART_OK .and. r(3) == 3, 'reduce with a Fortran operation')
    ia = [1, 2, 3]
    call dart_allreduce(ia, ib, op, DART_TEAM_ALL, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_allreduce', 'dtype', &
                    'a user operation with another datatype')
    tmp = op
    call dart_op_destroy(op, stat=st)
    call check(st == DART_OK .and. op == DART_OP_UNDEFINED, 'dart_op_destroy')
    call dart_op_destroy(tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_op_destroy', '', 'destroying twice')
    tmp = DART_OP_SUM
    call dart_op_destroy(tmp, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_op_destroy', '', 'destroying DART_OP_SUM')
    call dart_op_create(absmax, c_null_ptr, .true., DART_TYPE_UNDEFINED, .false., op, stat=st, &
                        errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_op_create', '', 'op_create(DART_TYPE_UNDEFINED)')
    call dart_barrier(DART_TEAM_ALL)
  end subroutine user_op

end program ftest_collectives
