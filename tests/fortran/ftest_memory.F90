! SPDX-License-Identifier: BSD-3-Clause
! ftest_memory: global memory (dart_memalloc pool, collective allocations, registration of
! Fortran arrays), the gptr type (layout, accessors, setters, flags, comparisons) and
! dart_local pointers of every type and rank 1..4 onto the caller's part and onto the
! parts of the units of its node (and the error for another node).
program ftest_memory
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use, intrinsic :: iso_c_binding
  use dart
  use ftest
  implicit none
  integer :: stat, i, u, flags, nb4
  integer(int64) :: nb8, off
  character(len=256) :: msg
  type(dart_gptr) :: g, p, t, gnull, made
  type(c_ptr) :: addr, addr2
  integer(int16) :: segid
  integer(DART_TEAM_KIND) :: teamid
  integer :: unitid
  real(real64), target, asynchronous :: reg(10)
  integer(int32), target, asynchronous :: regv(8)
  real(real64), target :: buf(10)
  integer(int64) :: words(2), nullwords(2)

  call ftest_start('ftest_memory')

  ! ---------------------------------------------------------------------------------
  call ftest_section('gptr layout')
  call check(storage_size(g) == 128, 'type(dart_gptr) is 16 bytes')
  call check(dart_gptr_isnull(gnull), 'a default-initialized gptr is DART_GPTR_NULL')
  call check(dart_gptr_isnull(DART_GPTR_NULL), 'dart_gptr_isnull(DART_GPTR_NULL)')
  call dart_gptr_make(-1, 0, 0_int16, DART_TEAM_NULL, 0_int64, made, stat=stat)
  call check_ok(stat, 'dart_gptr_make')
  words = transfer(made, words)
  nullwords = transfer(DART_GPTR_NULL, nullwords)
  call check(all(words == nullwords), 'DART_GPTR_NULL is byte-identical to the C constant')
  call check(dart_gptr_unit(DART_GPTR_NULL) == -1 .and. dart_gptr_teamid(DART_GPTR_NULL) == &
             DART_TEAM_NULL .and. dart_gptr_segid(DART_GPTR_NULL) == 0 .and. &
             dart_gptr_offset(DART_GPTR_NULL) == 0 .and. dart_gptr_flags(DART_GPTR_NULL) == 0, &
             'accessors on DART_GPTR_NULL')
  call dart_gptr_make(123456, 200, 7_int16, 3_DART_TEAM_KIND, 1099511627776_int64, made)
  call check(dart_gptr_unit(made) == 123456 .and. dart_gptr_flags(made) == 200 .and. &
             dart_gptr_segid(made) == 7 .and. dart_gptr_teamid(made) == 3 .and. &
             dart_gptr_offset(made) == 1099511627776_int64, 'accessors after dart_gptr_make')
  call dart_gptr_fields(made, unitid=unitid, flags=flags, segid=segid, teamid=teamid, offset=off)
  call check(unitid == 123456 .and. flags == 200 .and. segid == 7 .and. teamid == 3 .and. &
             off == 1099511627776_int64, 'dart_gptr_fields')
  call dart_gptr_make(2**24, 0, 0_int16, 0_DART_TEAM_KIND, 0_int64, made, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_gptr_make', '24', 'make(unit 2**24)')
  call dart_gptr_make(0, 256, 0_int16, 0_DART_TEAM_KIND, 0_int64, made, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_gptr_make', 'flags', 'make(flags 256)')

  ! ---------------------------------------------------------------------------------
  call ftest_section('dart_memalloc')
  call dart_memalloc(10, DART_TYPE_DOUBLE, g, stat=stat)
  call check_ok(stat, 'dart_memalloc')
  call check(dart_gptr_unit(g) == me .and. dart_gptr_segid(g) == DART_SEGMENT_LOCAL .and. &
             dart_gptr_teamid(g) == DART_TEAM_ALL, 'pool gptr: own unit, segment 0, team all')
  call dart_gptr_getaddr(g, addr, stat=stat)
  call check(stat == DART_OK .and. c_associated(addr), 'dart_gptr_getaddr (own memory)')
  p = g
  call dart_gptr_incaddr(p, 16, stat=stat)
  call check(stat == DART_OK .and. dart_gptr_offset(p) == dart_gptr_offset(g) + 16, &
             'dart_gptr_incaddr (default integer)')
  call dart_gptr_incaddr(p, -8_int64)
  call check(dart_gptr_offset(p) == dart_gptr_offset(g) + 8, 'dart_gptr_incaddr (int64, negative)')
  call dart_gptr_getaddr(p, addr2)
  call check(transfer(addr2, 0_c_intptr_t) - transfer(addr, 0_c_intptr_t) == 8, &
             'getaddr follows incaddr')
  p = g
  call dart_gptr_setaddr(p, addr2, stat=stat)
  call check(stat == DART_OK .and. dart_gptr_offset(p) == dart_gptr_offset(g) + 8, &
             'dart_gptr_setaddr')
  call dart_gptr_setaddr(p, c_loc(buf), stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_gptr_setaddr', '', &
                  'setaddr(an address outside the segment)')
  call check(g /= p .and. .not. dart_gptr_equal(g, p), 'gptrs with different offsets differ')
  p = g
  call check(g == p .and. dart_gptr_equal(g, p), 'copies compare equal')
  call dart_gptr_segment_size(g, nb8, stat=stat)
  call check(stat == DART_OK .and. nb8 > 0, 'dart_gptr_segment_size of the pool')

  ! every unit reads its right neighbour's allocation by RMA (pool gptrs are exchanged)
  block
    real(real64), pointer :: mine(:)
    type(dart_gptr) :: peers(0:nunits - 1)
    integer(int64) :: gw(2)
    integer(int64), allocatable :: allw(:)
    call dart_local(g, mine, [10], stat=stat)
    call check_ok(stat, 'dart_local on a dart_memalloc allocation')
    mine = [(100.0_real64 * me + i, i = 1, 10)]
    gw = transfer(g, gw)
    allocate(allw(2 * nunits))
    call dart_allgather(gw, allw, DART_TEAM_ALL, stat=stat)
    call check_ok(stat, 'dart_allgather of the gptrs')
    do u = 0, nunits - 1
      peers(u) = transfer(allw(2 * u + 1:2 * u + 2), g)
    end do
    call dart_barrier(DART_TEAM_ALL)
    u = mod(me + 1, nunits)
    buf = 0
    call dart_get_blocking(buf, peers(u), stat=stat)
    call check(stat == DART_OK .and. all(buf == [(100.0_real64 * u + i, i = 1, 10)]), &
               'get from the neighbour''s dart_memalloc memory')
    ! Another unit's memory has no local address: the core follows DART 3.2 here
    ! (DART_OK and a null address), although dart_globmem.h says DART_ERR_INVAL.
    addr2 = c_loc(buf)
    call dart_gptr_getaddr(peers(u), addr2, stat=stat, errmsg=msg)
    if (u /= me) call check((stat == DART_OK .and. .not. c_associated(addr2)) .or. &
                            stat == DART_ERR_INVAL, 'getaddr of another unit''s memory')
    call dart_barrier(DART_TEAM_ALL)
    if (u /= me) then
      call dart_memfree(peers(u), stat=stat, errmsg=msg)
      call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_memfree', '', &
                      'memfree of another unit''s allocation')
    end if
  end block
  call dart_memfree(g, stat=stat)
  call check_ok(stat, 'dart_memfree')
  call dart_memfree(g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_memfree', '', 'second dart_memfree')
  call dart_memalloc(3_int64, DART_TYPE_INT, g, stat=stat)
  call check_ok(stat, 'dart_memalloc (int64 nelem)')
  call dart_memfree(g)
  call dart_memalloc(-1, DART_TYPE_INT, g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_memalloc', 'negative', 'memalloc(-1)')
  call dart_memalloc(2_int64**59, DART_TYPE_DOUBLE, g, stat=stat, errmsg=msg)
  call check(stat == DART_ERR_NOMEM .or. stat == DART_ERR_INVAL, 'memalloc(huge) fails')
  call dart_memalloc(1_int64 * 2**30, DART_TYPE_DOUBLE, g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOMEM, msg, 'dart_memalloc', 'DART_POOL_SIZE', &
                  'memalloc beyond the pool')
  call dart_memalloc(4, DART_TYPE_UNDEFINED, g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_memalloc', '', 'memalloc(DART_TYPE_UNDEFINED)')

  ! ---------------------------------------------------------------------------------
  call ftest_section('dart_team_memalloc_aligned')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, 4096_int64, DART_TYPE_BYTE, g, stat=stat)
  call check_ok(stat, 'dart_team_memalloc_aligned (int64)')
  call check(dart_gptr_unit(g) == 0 .and. dart_gptr_teamid(g) == DART_TEAM_ALL .and. &
             dart_gptr_segid(g) /= 0, 'a team allocation points at unit 0, team all')
  call dart_gptr_segment_size(g, nb4, stat=stat)
  call check(stat == DART_OK .and. nb4 == 4096, 'dart_gptr_segment_size (default integer)')
  p = g
  call dart_gptr_setunit(p, nunits - 1, stat=stat)
  call check(stat == DART_OK .and. dart_gptr_unit(p) == nunits - 1 .and. &
             dart_gptr_offset(p) == dart_gptr_offset(g), 'dart_gptr_setunit')
  call dart_gptr_setunit(p, 2**24, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_gptr_setunit', '24', 'setunit(2**24)')
  call check(dart_gptr_unit(p) == nunits - 1, 'setunit leaves the gptr alone on failure')
  call dart_gptr_setflags(p, 4660, stat=stat)
  call check_ok(stat, 'dart_gptr_setflags')
  call dart_gptr_getflags(g, flags, stat=stat)
  call check(stat == DART_OK .and. flags == 4660, 'dart_gptr_getflags sees the segment flags')
  call check(dart_gptr_flags(p) == iand(4660, 255), 'setflags copies the low 8 bits')
  call dart_gptr_setflags(p, 65535)
  call dart_gptr_getflags(p, flags)
  call check(flags == 65535, 'flags up to 65535')
  call dart_gptr_setflags(p, 70000, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_gptr_setflags', '65535', 'setflags(70000)')

  ! dart_local of every type onto every unit of the node; the other units by RMA
  call local_all_types(g)

  ! the own part, at its end
  p = g
  call dart_gptr_setunit(p, me)
  call dart_gptr_incaddr(p, 4096)
  call dart_gptr_segment_size(p, nb8)
  block
    real(real64), pointer :: r1(:)
    r1 => null()
    call dart_local(p, r1, [1], stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_local', 'bytes', 'dart_local past the end')
    call check(.not. associated(r1), 'dart_local leaves ptr alone on failure')
  end block

  t = g
  call dart_team_memfree(g, stat=stat)
  call check_ok(stat, 'dart_team_memfree')
  call dart_team_memfree(t, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_memfree', 'does not exist', &
                  'second dart_team_memfree')
  call dart_gptr_getflags(t, flags, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_gptr_getflags', '', 'getflags(freed)')
  call dart_gptr_setflags(t, 1, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_gptr_setflags', '', 'setflags(freed)')
  call dart_gptr_segment_size(t, nb8, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_gptr_segment_size', '', &
                  'segment_size(freed)')
  call dart_gptr_getaddr_node(t, addr, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_gptr_getaddr_node', '', &
                  'getaddr_node(freed)')
  call dart_memalloc(1, DART_TYPE_INT, p)
  call dart_team_memfree(p, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_memfree', '', 'team_memfree(pool gptr)')
  call dart_memfree(p)
  call dart_team_memalloc_aligned(DART_TEAM_ALL, -5, DART_TYPE_INT, g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_memalloc_aligned', 'negative', &
                  'team_memalloc_aligned(-5)')
  call dart_team_memalloc_aligned(999_DART_TEAM_KIND, 5, DART_TYPE_INT, g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_memalloc_aligned', 'does not exist', &
                  'team_memalloc_aligned(unknown team)')

  ! ---------------------------------------------------------------------------------
  ! issue 30: every unit its own number of elements (every third none); every access is
  ! bounded by its target's part, dart_local onto a same-node part of its own size
  call ftest_section('dart_team_memalloc_aligned, per-unit sizes')
  call dart_team_memalloc_aligned(DART_TEAM_ALL, per_unit(me), DART_TYPE_INT, g, stat=stat)
  call check_ok(stat, 'dart_team_memalloc_aligned (per-unit sizes)')
  do u = 0, nunits - 1
    p = g
    call dart_gptr_setunit(p, u)
    call dart_gptr_segment_size(p, nb8)
    call check(nb8 == 4 * per_unit(u), 'segment size of every unit is its own')
  end do
  call dart_barrier(DART_TEAM_ALL)
  do u = 0, nunits - 1
    p = g
    call dart_gptr_setunit(p, u)
    if (per_unit(u) > 0) then
      ! the last element of unit u: unit me writes it when me == u's right neighbour
      call dart_gptr_incaddr(p, 4 * (per_unit(u) - 1))
      if (u == mod(me + 1, nunits)) then
        call dart_put_blocking(p, [int(100 + me, int32)], stat=stat)
        call check_ok(stat, 'put into the last element of the right neighbour''s part')
      end if
      call dart_gptr_incaddr(p, 4)
    end if
    ! one element past the target's end: refused, whatever the caller's own size
    call dart_put_blocking(p, [7_int32], stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_put_blocking', 'past the end', &
                    'put one element past a target''s end')
  end do
  call dart_barrier(DART_TEAM_ALL)
  if (per_unit(me) > 0) then
    block
      integer(int32), pointer :: v(:)
      p = g
      call dart_gptr_setunit(p, me)
      call dart_local(p, v, [int(per_unit(me))], stat=stat)
      call check(stat == DART_OK .and. v(per_unit(me)) == 100 + mod(me - 1 + nunits, nunits), &
                 'the left neighbour wrote my last element')
      call dart_local(p, v, [int(per_unit(me)) + 1], stat=stat, errmsg=msg)
      call check_stat(stat, DART_ERR_INVAL, msg, 'dart_local', '', &
                      'dart_local larger than the own part')
    end block
  end if
  call dart_barrier(DART_TEAM_ALL)
  call dart_team_memfree(g)

  ! ---------------------------------------------------------------------------------
  call ftest_section('dart_team_memregister')
  reg = -1
  call dart_team_memregister_aligned(DART_TEAM_ALL, reg, g, stat=stat)
  call check_ok(stat, 'dart_team_memregister_aligned (typed)')
  call dart_barrier(DART_TEAM_ALL)
  p = g
  call dart_gptr_setunit(p, mod(me + 1, nunits))
  buf = [(1000.0_real64 * me + i, i = 1, 10)]
  call dart_put_blocking(p, buf, stat=stat)
  call check_ok(stat, 'put into a registered Fortran array')
  call dart_barrier(DART_TEAM_ALL)
  u = mod(me - 1 + nunits, nunits)
  call check(all(reg == [(1000.0_real64 * u + i, i = 1, 10)]), &
             'the registered array holds the left neighbour''s data')
  if (nunits > 1 .and. same_node(mod(me + 1, nunits))) then
    ! registered memory is not in a shared-memory window: no pointer to another unit's
    block
      real(real64), pointer :: r1(:)
      call dart_local(p, r1, [10], stat=stat, errmsg=msg)
      call check_stat(stat, DART_ERR_INVAL, msg, 'dart_local', 'dart_gptr_getaddr_node', &
                      'dart_local on another unit''s registered memory')
    end block
  end if
  block
    real(real64), pointer :: r1(:)
    p = g
    call dart_gptr_setunit(p, me)
    call dart_local(p, r1, [10], stat=stat)
    call check(stat == DART_OK .and. associated(r1, reg), &
               'dart_local on own registered memory is the array itself')
  end block
  call dart_team_memderegister(g, stat=stat)
  call check_ok(stat, 'dart_team_memderegister')
  call dart_team_memderegister(g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_memderegister', 'does not exist', &
                  'second dart_team_memderegister')

  ! different sizes per unit, typed and C-style
  regv = -1
  call dart_team_memregister(DART_TEAM_ALL, regv(1:me + 1), g, stat=stat)
  call check_ok(stat, 'dart_team_memregister (typed, me+1 elements)')
  p = g
  call dart_gptr_setunit(p, nunits - 1)
  call dart_gptr_segment_size(p, nb8)
  call check(nb8 == 4 * nunits, 'segment size of the last unit is 4 * nunits bytes')
  call dart_team_memderegister(g)
  call dart_team_memregister(DART_TEAM_ALL, int(me + 1, c_size_t), DART_TYPE_INT, c_loc(regv), &
                             g, stat=stat)
  call check_ok(stat, 'dart_team_memregister (C-style)')
  call dart_team_memderegister(g)
  call dart_team_memregister_aligned(DART_TEAM_ALL, 8, DART_TYPE_INT, c_loc(regv), g, stat=stat)
  call check_ok(stat, 'dart_team_memregister_aligned (C-style)')
  call dart_team_memderegister(g)
  ! a section is not contiguous: refused (on every unit alike, so nobody waits)
  call dart_team_memregister_aligned(DART_TEAM_ALL, reg(1:10:2), g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_memregister_aligned', 'contiguous', &
                  'registering a strided section')
  call dart_team_memregister(DART_TEAM_ALL, regv(::2), g, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_memregister', 'contiguous', &
                  'registering a strided section (unaligned)')
  call dart_team_memregister(DART_TEAM_ALL, -1, DART_TYPE_INT, c_loc(regv), g, stat=stat, &
                             errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_memregister', 'negative', &
                  'memregister(-1 elements)')

  ! ---------------------------------------------------------------------------------
  call ftest_section('dart_datatype_of')
  call check(dart_datatype_of(1_int8) == DART_TYPE_BYTE, 'int8 -> DART_TYPE_BYTE')
  call check(dart_datatype_of([1_int16]) == DART_TYPE_SHORT, 'int16 -> DART_TYPE_SHORT')
  call check(dart_datatype_of(1_int32) == DART_TYPE_INT, 'int32 -> DART_TYPE_INT')
  call check(dart_datatype_of(1_int64) == DART_TYPE_LONGLONG, 'int64 -> DART_TYPE_LONGLONG')
  call check(dart_datatype_of(1.0_real32) == DART_TYPE_FLOAT, 'real32 -> DART_TYPE_FLOAT')
  call check(dart_datatype_of(buf) == DART_TYPE_DOUBLE, 'real64 -> DART_TYPE_DOUBLE')
  call check(dart_datatype_of((1.0_real32, 0.0_real32)) == DART_TYPE_FLOAT, &
             'complex(real32) -> 2 x DART_TYPE_FLOAT')
  call check(dart_datatype_of((1.0_real64, 0.0_real64)) == DART_TYPE_DOUBLE, &
             'complex(real64) -> 2 x DART_TYPE_DOUBLE')

  call ftest_finish()

contains

  ! elements of unit u in the per-unit-size allocation: none for every third unit
  pure integer(int64) function per_unit(u)
    integer, intent(in) :: u
    per_unit = merge(0_int64, int(3 * u + 2, int64), mod(u, 3) == 1)
  end function per_unit

  !> For each type/rank: fill the own part through dart_local, then look at every unit's
  !> part: same node -> dart_local pointer (and compare), other node -> the error, and a
  !> dart_get_blocking of the same data for every unit.
  subroutine local_all_types(seg)
    type(dart_gptr), intent(in) :: seg
    type(dart_gptr) :: mine, there
    integer(int8), pointer :: a1(:)
    integer(int16), pointer :: a2(:,:)
    integer(int32), pointer :: a3(:,:,:)
    integer(int64), pointer :: a4(:,:,:,:)
    real(real32), pointer :: b1(:)
    real(real64), pointer :: b2(:,:), b2s(:,:)
    complex(real32), pointer :: c3(:,:,:)
    complex(real64), pointer :: c2(:,:)
    real(real64) :: got(3, 4)
    integer :: st, uu
    character(len=256) :: m

    mine = seg
    call dart_gptr_setunit(mine, me)
    ! each layout starts at offset 0 of the unit's part; check them one after another
    call dart_local(mine, a1, [16], stat=st)
    call check(st == DART_OK .and. size(a1) == 16, 'dart_local int8 rank 1')
    call dart_local(mine, a2, [4, 4], stat=st)
    call check(st == DART_OK .and. all(shape(a2) == [4, 4]), 'dart_local int16 rank 2')
    call dart_local(mine, a3, [2, 3, 4], stat=st)
    call check(st == DART_OK .and. all(shape(a3) == [2, 3, 4]), 'dart_local int32 rank 3')
    call dart_local(mine, a4, [2_int64, 2_int64, 2_int64, 2_int64], stat=st)
    call check(st == DART_OK .and. all(shape(a4) == 2), 'dart_local int64 rank 4 (int64 shape)')
    call dart_local(mine, b1, [7_int64], stat=st)
    call check(st == DART_OK .and. size(b1) == 7, 'dart_local real32 rank 1 (int64 shape)')
    call dart_local(mine, c3, [2, 2, 2], stat=st)
    call check(st == DART_OK .and. size(c3) == 8, 'dart_local complex(real32) rank 3')
    call dart_local(mine, c2, [3, 2], stat=st)
    call check(st == DART_OK .and. all(shape(c2) == [3, 2]), 'dart_local complex(real64) rank 2')
    c2 = reshape([(cmplx(me, i, real64), i = 1, 6)], [3, 2])
    call check(all(transfer(c3, [0.0_real32]) /= -999.0), 'complex(real32) view readable')
    ! the final contents: a real64 3x4 matrix
    call dart_local(mine, b2, [3, 4], stat=st)
    call check(st == DART_OK, 'dart_local real64 rank 2')
    b2 = reshape([(1000.0_real64 * me + i, i = 1, 12)], [3, 4])
    call dart_barrier(DART_TEAM_ALL)

    do uu = 0, nunits - 1
      there = seg
      call dart_gptr_setunit(there, uu)
      got = -1
      call dart_get_blocking(got, there, stat=st)
      call check(st == DART_OK .and. all(got == reshape([(1000.0_real64 * uu + i, i = 1, 12)], &
                 [3, 4])), 'get of every unit''s matrix')
      b2s => null()
      call dart_local(there, b2s, [3, 4], stat=st, errmsg=m)
      if (same_node(uu)) then
        call check(st == DART_OK, 'dart_local onto a unit of the same node: ' // trim(m))
        if (st == DART_OK) call check(all(b2s == got), 'the pointer sees the same data')
      else
        call check_stat(st, DART_ERR_INVAL, m, 'dart_local', 'dart_gptr_getaddr_node', &
                        'dart_local onto a unit of another node')
        call check(.not. associated(b2s), 'no pointer on failure')
      end if
    end do
    ! shape errors
    call dart_local(mine, b2s, [3], stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_local', 'rank', 'shape of the wrong size')
    call dart_local(mine, b2s, [1000, 1000], stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_local', 'bytes', 'shape larger than the part')
    call dart_local(mine, b2s, [-1, 2], stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_local', 'negative', 'negative extent')
    there = mine
    call dart_gptr_incaddr(there, 4)
    call dart_local(there, b2s, [1, 1], stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_local', 'aligned', 'misaligned real64 pointer')
    call dart_local(DART_GPTR_NULL, b2s, [1, 1], stat=st, errmsg=m)
    call check_stat(st, DART_ERR_INVAL, m, 'dart_local', '', 'dart_local(DART_GPTR_NULL)')
    call dart_barrier(DART_TEAM_ALL)
  end subroutine local_all_types

end program ftest_memory
