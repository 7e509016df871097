! SPDX-License-Identifier: BSD-3-Clause
! ftest_teams: groups (every group call, sorted members, split) and teams (create from a
! group, clone, ids and translation, dart_team_comm used for an MPI collective, destroy),
! with good and bad input; the locality queries and a team split by node.
program ftest_teams
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use mpi_f08
  use dart
  use ftest
  implicit none
  type(dart_group) :: g, h, u, x, c, parts(4), empty
  type(dart_group) :: gnull, tg
  integer :: stat, i, n, nout, total, id, gid, lid, ierr, csize, crank, sum_ranks
  integer(int64) :: n8
  integer, allocatable :: members(:)
  logical :: is
  integer(DART_TEAM_KIND) :: even, clone, t, bad
  character(len=256) :: msg
  type(MPI_Comm) :: comm, rev, tcomm
  integer :: cmp

  call ftest_start('ftest_teams')

  ! ---------------------------------------------------------------------------------
  call ftest_section('groups')
  call dart_group_create(g, stat=stat)
  call check_ok(stat, 'dart_group_create')
  call dart_group_size(g, n, stat=stat)
  call check(stat == DART_OK .and. n == 0, 'a new group is empty')
  ! add in descending order: the group keeps them sorted
  do i = nunits - 1, 0, -2
    call dart_group_addmember(g, i, stat=stat)
    call check_ok(stat, 'dart_group_addmember')
  end do
  call dart_group_addmember(g, nunits - 1, stat=stat)   ! already a member: no effect
  call check_ok(stat, 'dart_group_addmember (again)')
  call dart_group_size(g, n8, stat=stat)
  call check(stat == DART_OK .and. n8 == (nunits + 1) / 2, 'dart_group_size (int64)')
  allocate(members(nunits))
  members = -1
  call dart_group_getmembers(g, members, stat=stat)
  call check_ok(stat, 'dart_group_getmembers')
  total = (nunits + 1) / 2
  do i = 1, total
    call check(members(i) == mod(nunits - 1, 2) + 2 * (i - 1), 'members sorted ascending')
  end do
  call dart_group_ismember(g, nunits - 1, is, stat=stat)
  call check(stat == DART_OK .and. is, 'dart_group_ismember (member)')
  if (nunits > 1) then
    call dart_group_ismember(g, nunits - 2, is, stat=stat)
    call check(stat == DART_OK .and. .not. is, 'dart_group_ismember (not a member)')
  end if

  call dart_group_clone(g, c, stat=stat)
  call check_ok(stat, 'dart_group_clone')
  call dart_group_delmember(c, nunits - 1, stat=stat)
  call check_ok(stat, 'dart_group_delmember')
  call dart_group_size(c, n, stat=stat)
  call check(n == total - 1, 'the clone is independent of the original')
  call dart_group_size(g, n, stat=stat)
  call check(n == total, 'the original is unchanged')

  ! union / intersection with the complement
  call dart_group_create(h, stat=stat)
  do i = 0, nunits - 1
    call dart_group_ismember(g, i, is)
    if (.not. is) call dart_group_addmember(h, i)
  end do
  call dart_group_union(g, h, u, stat=stat)
  call check_ok(stat, 'dart_group_union')
  call dart_group_size(u, n)
  call check(n == nunits, 'union with the complement is everything')
  call dart_group_getmembers(u, members)
  call check(all(members == [(i, i = 0, nunits - 1)]), 'union is sorted')
  call dart_group_intersect(g, h, x, stat=stat)
  call check_ok(stat, 'dart_group_intersect')
  call dart_group_size(x, n)
  call check(n == 0, 'intersection with the complement is empty')
  call dart_group_destroy(x, stat=stat)
  call check(stat == DART_OK .and. x == DART_GROUP_NULL, 'dart_group_destroy sets DART_GROUP_NULL')

  ! split into at most 4 groups
  call dart_group_split(u, 4, nout, parts, stat=stat)
  call check_ok(stat, 'dart_group_split')
  call check(nout == min(4, nunits), 'dart_group_split: min(n, size) groups')
  total = 0
  do i = 1, nout
    call dart_group_size(parts(i), n)
    total = total + n
    call dart_group_destroy(parts(i), stat=stat)
    call check_ok(stat, 'dart_group_destroy (split part)')
  end do
  call check(total == nunits, 'the split parts hold every unit once')

  ! bad input
  gnull = DART_GROUP_NULL
  call dart_group_addmember(g, nunits, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_addmember', 'out of range', &
                  'addmember(size)')
  call dart_group_delmember(g, -1, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_delmember', 'out of range', &
                  'delmember(-1)')
  call dart_group_ismember(gnull, 0, is, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_ismember', 'NULL', &
                  'ismember(DART_GROUP_NULL)')
  call dart_group_size(gnull, n, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_size', 'NULL', 'size(NULL)')
  call dart_group_clone(gnull, empty, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_clone', 'NULL', 'clone(NULL)')
  call dart_group_union(g, gnull, empty, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_union', 'NULL', 'union(g, NULL)')
  call dart_group_intersect(gnull, g, empty, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_intersect', 'NULL', &
                  'intersect(NULL, g)')
  call dart_group_destroy(gnull, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_destroy', 'NULL', 'destroy(NULL)')
  if (nunits > 1) then
    call dart_group_getmembers(u, members(1:nunits - 1), stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_getmembers', 'shorter', &
                    'getmembers into a short array')
  end if
  call dart_group_getmembers(gnull, members, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_getmembers', 'NULL', &
                  'getmembers(NULL)')
  call dart_group_split(u, 5, nout, parts, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_split', 'room', &
                  'split into more groups than gout holds')
  call dart_group_split(u, 0, nout, parts, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_group_split', 'at least 1', 'split(0)')
  call dart_group_create(empty, stat=stat)
  call check_ok(stat, 'dart_group_create (for the teams)')

  ! ---------------------------------------------------------------------------------
  call ftest_section('teams')
  ! team of the even units (group h or g, whichever holds unit 0)
  call dart_group_ismember(g, 0, is)
  even = DART_TEAM_NULL
  if (is) then
    call dart_team_create(DART_TEAM_ALL, g, even, stat=stat)
  else
    call dart_team_create(DART_TEAM_ALL, h, even, stat=stat)
  end if
  call check_ok(stat, 'dart_team_create')
  if (mod(me, 2) == 0) then
    call check(even /= DART_TEAM_NULL .and. even > 0, 'members get a team id')
    call dart_team_size(even, n, stat=stat)
    call check(stat == DART_OK .and. n == (nunits + 1) / 2, 'dart_team_size of the even team')
    call dart_team_size(even, n8, stat=stat)
    call check(stat == DART_OK .and. n8 == (nunits + 1) / 2, 'dart_team_size (int64)')
    call dart_team_myid(even, id, stat=stat)
    call check(stat == DART_OK .and. id == me / 2, 'dart_team_myid')
    call dart_team_unit_l2g(even, id, gid, stat=stat)
    call check(stat == DART_OK .and. gid == me, 'dart_team_unit_l2g')
    call dart_team_unit_g2l(even, me, lid, stat=stat)
    call check(stat == DART_OK .and. lid == id, 'dart_team_unit_g2l')
    if (nunits > 1) then
      call dart_team_unit_g2l(even, 1, lid, stat=stat)
      call check(stat == DART_OK .and. lid == DART_UNDEFINED_UNIT_ID, &
                 'dart_team_unit_g2l of a non-member is DART_UNDEFINED_UNIT_ID')
    end if
    call dart_team_unit_l2g(even, int(n), gid, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_unit_l2g', 'out of range', &
                    'l2g(team size)')
    call dart_team_get_group(even, tg, stat=stat)
    call check_ok(stat, 'dart_team_get_group')
    call dart_group_ismember(tg, me, is)
    call check(is, 'the team group holds the caller')
    call dart_group_destroy(tg)

    ! the team communicator in an MPI collective
    call dart_team_comm(even, comm, stat=stat)
    call check_ok(stat, 'dart_team_comm')
    call MPI_Comm_size(comm, csize, ierr)
    call MPI_Comm_rank(comm, crank, ierr)
    call check(ierr == MPI_SUCCESS .and. csize == n .and. crank == id, &
               'team communicator: size and rank')
    call MPI_Allreduce(me, sum_ranks, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
    call check(sum_ranks == sum([(i, i = 0, nunits - 1, 2)]), &
               'MPI_Allreduce on the team communicator')
    call dart_barrier(even, stat=stat)
    call check_ok(stat, 'dart_barrier(team)')

    call dart_team_clone(even, clone, stat=stat)
    call check_ok(stat, 'dart_team_clone')
    call check(clone /= even, 'the clone has a new id')
    call dart_team_size(clone, n, stat=stat)
    call check(n == (nunits + 1) / 2, 'the clone has the same size')
    t = clone
    call dart_team_destroy(clone, stat=stat)
    call check_ok(stat, 'dart_team_destroy(clone)')
    call check(clone == DART_TEAM_NULL, 'dart_team_destroy sets DART_TEAM_NULL')
    call dart_team_size(t, n, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_size', 'does not exist', &
                    'size of a destroyed team')
  else
    call check(even == DART_TEAM_NULL, 'non-members get DART_TEAM_NULL')
    call dart_team_myid(even, id, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_myid', 'invalid team', &
                    'myid(DART_TEAM_NULL)')
  end if

  ! DART_TEAM_ALL's communicator
  call dart_team_comm(DART_TEAM_ALL, comm, stat=stat)
  call check_ok(stat, 'dart_team_comm(DART_TEAM_ALL)')
  call MPI_Comm_size(comm, csize, ierr)
  call check(csize == nunits, 'DART_TEAM_ALL communicator size')

  ! a team of a communicator keeps its rank order: every unit, reversed
  call ftest_section('team from a communicator')
  call MPI_Comm_split(comm, 0, nunits - 1 - me, rev, ierr)
  call dart_team_create_from_comm(DART_TEAM_ALL, rev, t, stat=stat)
  call check_ok(stat, 'dart_team_create_from_comm')
  call dart_team_myid(t, id, stat=stat)
  call check(stat == DART_OK .and. id == nunits - 1 - me, 'the team id is the rank in comm')
  call dart_team_unit_l2g(t, 0, gid, stat=stat)
  call check(stat == DART_OK .and. gid == nunits - 1, 'team unit 0 is the last unit')
  call dart_team_comm(t, tcomm, stat=stat)
  call MPI_Comm_compare(tcomm, rev, cmp, ierr)
  call check(cmp == MPI_CONGRUENT, 'the team communicator is congruent with comm')
  call dart_team_destroy(t, stat=stat)
  call check_ok(stat, 'dart_team_destroy(team from comm)')
  call MPI_Comm_free(rev, ierr)
  ! only unit 0, with MPI_COMM_SELF
  if (me == 0) then
    call dart_team_create_from_comm(DART_TEAM_ALL, MPI_COMM_SELF, t, stat=stat)
  else
    call dart_team_create_from_comm(DART_TEAM_ALL, MPI_COMM_NULL, t, stat=stat)
  end if
  call check(stat == DART_OK .and. ((t == DART_TEAM_NULL) .eqv. (me /= 0)), &
             'MPI_COMM_NULL: not a member')
  if (t /= DART_TEAM_NULL) call dart_team_destroy(t, stat=stat)

  ! bad team ids (the same on every unit, so collectives fail everywhere)
  bad = 12345_DART_TEAM_KIND
  call dart_team_size(bad, n, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_size', 'does not exist', &
                  'size(unknown team)')
  call dart_team_myid(DART_TEAM_NULL, id, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_myid', 'invalid team', &
                  'myid(DART_TEAM_NULL)')
  call dart_team_comm(bad, comm, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_comm', 'does not exist', &
                  'team_comm(unknown team)')
  call dart_team_get_group(bad, x, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_get_group', 'does not exist', &
                  'get_group(unknown team)')
  call dart_team_unit_l2g(bad, 0, gid, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_unit_l2g', 'does not exist', &
                  'l2g(unknown team)')
  call dart_team_unit_g2l(DART_TEAM_ALL, nunits, lid, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_unit_g2l', 'out of range', &
                  'g2l(size)')
  call dart_team_clone(bad, t, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_clone', 'does not exist', &
                  'clone(unknown team)')
  call dart_team_create(bad, u, t, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_team_create', 'does not exist', &
                  'create(unknown parent)')
  t = DART_TEAM_ALL
  call dart_team_destroy(t, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_destroy', 'DART_TEAM_ALL', &
                  'destroy(DART_TEAM_ALL)')
  call dart_barrier(bad, stat=stat, errmsg=msg)
  call check_stat(stat, DART_ERR_NOTFOUND, msg, 'dart_barrier', 'does not exist', &
                  'barrier(unknown team)')

  if (mod(me, 2) == 0) then
    call dart_team_destroy(even, stat=stat)
    call check_ok(stat, 'dart_team_destroy(even)')
  end if

  ! many create/destroy cycles of a team of everybody
  do i = 1, 50
    call dart_team_create(DART_TEAM_ALL, u, t, stat=stat)
    if (stat /= DART_OK) exit
    call dart_team_destroy(t, stat=stat)
    if (stat /= DART_OK) exit
  end do
  call check_ok(stat, '50 team create/destroy cycles')

  ! ---------------------------------------------------------------------------------
  ! issue 30: the locality queries (dart_locality.h) against the node table
  call ftest_section('locality')
  block
    character(len=64) :: host, host0, tag
    integer :: node, core, cpu, cores, numa, ndom, k, lnode
    integer, allocatable :: dunits(:)
    integer(DART_TEAM_KIND) :: pernode
    call dart_unit_locality(me, host=host, node=node, core_id=core, cpu_id=cpu, &
                            num_cores=cores, num_numa=numa, domain_tag=tag, stat=stat)
    call check(stat == DART_OK .and. node == mynode .and. len_trim(host) > 0 .and. &
               cores >= 1 .and. numa >= 1 .and. cpu >= 0 .and. tag(1:1) == '.', &
               'dart_unit_locality of this unit')
    call dart_unit_locality(0, host=host0, node=node)
    call check((node == mynode) .eqv. (host0 == host), 'units share a host name iff they ' // &
               'share a node')
    call dart_locality_num_domains(DART_LOCALITY_SCOPE_NODE, ndom, stat=stat)
    call check(stat == DART_OK .and. ndom == nnodes, 'one node domain per node')
    call dart_locality_domain(DART_LOCALITY_SCOPE_NODE, mynode, units=dunits, host=host0, &
                              node=lnode, stat=stat)
    call check(stat == DART_OK .and. lnode == mynode .and. host0 == host .and. &
               any(dunits == me), 'my node''s domain holds me')
    do k = 1, size(dunits)
      call check(same_node(dunits(k)), 'the node domain holds units of my node only')
    end do
    call dart_locality_num_domains(DART_LOCALITY_SCOPE_CORE, ndom)
    call check(ndom >= nnodes, 'at least one core domain per node')
    call dart_locality_domain(DART_LOCALITY_SCOPE_NODE, nnodes, units=dunits, stat=stat, &
                              errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_locality_domain', 'out of range', &
                    'dart_locality_domain past the last node')
    call dart_unit_locality(nunits, host=host, stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_unit_locality', 'out of range', &
                    'dart_unit_locality(nunits)')
    ! a team per node
    call dart_team_locality_split(DART_TEAM_ALL, DART_LOCALITY_SCOPE_NODE, 64, pernode, &
                                  stat=stat)
    call check_ok(stat, 'dart_team_locality_split by node')
    call dart_team_size(pernode, k)
    call check(k == count([(same_node(i), i = 0, nunits - 1)]), &
               'the team of my node holds the units of my node')
    call dart_team_destroy(pernode)
    pernode = 7
    call dart_team_locality_split(DART_TEAM_ALL, DART_LOCALITY_SCOPE_NODE, 0, pernode, &
                                  stat=stat, errmsg=msg)
    call check_stat(stat, DART_ERR_INVAL, msg, 'dart_team_locality_split', 'at least 1', &
                    'dart_team_locality_split(n = 0)')
    call check(pernode == DART_TEAM_NULL, 'a failed split gives DART_TEAM_NULL')
    deallocate(dunits)
  end block

  call dart_group_destroy(g)
  call dart_group_destroy(h)
  call dart_group_destroy(u)
  call dart_group_destroy(c)
  call dart_group_destroy(empty)
  deallocate(members)  ! a main program's allocatables are never freed for us (LSan)
  call ftest_finish()

end program ftest_teams
