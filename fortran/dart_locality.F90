! SPDX-License-Identifier: BSD-3-Clause
! dart_locality_f: the locality queries of dart_locality.h in module `dart`: where a unit
! runs (its node, host, NUMA domain, core, the cores of its node), the domains of a scope
! with their units, and a team split by locality (dart_team_locality_split, a DART-MPI
! extension). The raw interfaces and the bind(C) mirrors of dart_unit_locality_t and
! dart_domain_locality_t stay private here; module `dart` re-exports the public names.
! Units are 0-based as everywhere; `unit` is team-relative, `units` hold global ids.
module dart_locality_f
  use, intrinsic :: iso_c_binding
  use dart_c_binding, only: DART_OK, DART_ERR_INVAL, DART_TEAM_KIND, DART_TEAM_ALL, &
                            DART_TEAM_NULL, c_dart_team_unit_l2g, c_dart_unit_node
  use dart_f_base
  implicit none
  private

  public :: DART_LOCALITY_SCOPE_GLOBAL, DART_LOCALITY_SCOPE_GROUP, DART_LOCALITY_SCOPE_NODE
  public :: DART_LOCALITY_SCOPE_MODULE, DART_LOCALITY_SCOPE_NUMA, DART_LOCALITY_SCOPE_CORE
  public :: dart_unit_locality, dart_locality_num_domains, dart_locality_domain
  public :: dart_team_locality_split

  !> dart_locality_scope_t (dart_types.h)
  integer, parameter :: DART_LOCALITY_SCOPE_GLOBAL = 0, DART_LOCALITY_SCOPE_GROUP = 1, &
    DART_LOCALITY_SCOPE_NODE = 100, DART_LOCALITY_SCOPE_MODULE = 200, &
    DART_LOCALITY_SCOPE_NUMA = 300, DART_LOCALITY_SCOPE_CORE = 550

  ! Mirrors of dart_types.h's structs (read through pointers the core returns).
  type, bind(C) :: c_scope_pos
    integer(c_int) :: scope, index
  end type c_scope_pos
  type, bind(C) :: c_hwinfo
    character(kind=c_char) :: host(64)
    integer(c_int) :: num_cores, num_numa, numa_id, num_sockets, core_id, cpu_id
    integer(c_int) :: min_cpu_mhz, max_cpu_mhz
    integer(c_int) :: cache_sizes(5), cache_line_sizes(5), cache_ids(5)
    integer(c_int) :: min_threads, max_threads, max_shmem_mbps
    integer(c_int) :: system_memory_bytes, numa_memory_bytes
    type(c_scope_pos) :: scopes(12)
    integer(c_int) :: num_scopes
  end type c_hwinfo
  type, bind(C) :: c_unit_locality
    integer(c_int32_t) :: unit
    integer(c_int16_t) :: team
    type(c_hwinfo) :: hwinfo
    character(kind=c_char) :: domain_tag(32)
  end type c_unit_locality
  type, bind(C) :: c_domain
    character(kind=c_char) :: host(64), domain_tag(32)
    type(c_ptr) :: aliases
    integer(c_int) :: num_aliases, scope, level, global_index, relative_index
    type(c_ptr) :: parent
    integer(c_int) :: num_domains
    type(c_ptr) :: children
    integer(c_int) :: is_symmetric
    integer(c_int16_t) :: team
    integer(c_int) :: num_units
    type(c_ptr) :: unit_ids
    integer(c_int) :: num_nodes, node_id, num_cores, shared_mem_bytes
  end type c_domain

  interface
    integer(c_int) function c_dart_unit_locality(team, unit, loc) &
        bind(C, name='dart_unit_locality')
      import :: c_int, c_int16_t, c_int32_t, c_ptr
      integer(c_int16_t), value :: team
      integer(c_int32_t), value :: unit
      type(c_ptr), intent(out) :: loc
    end function c_dart_unit_locality
    integer(c_int) function c_dart_domain_team_locality(team, tag, domain) &
        bind(C, name='dart_domain_team_locality')
      import :: c_int, c_int16_t, c_char, c_ptr
      integer(c_int16_t), value :: team
      character(kind=c_char), intent(in) :: tag(*)
      type(c_ptr), intent(out) :: domain
    end function c_dart_domain_team_locality
    integer(c_int) function c_dart_domain_scope_domains(domain, scope, n, domains) &
        bind(C, name='dart_domain_scope_domains')
      import :: c_int, c_ptr
      type(c_ptr), value :: domain
      integer(c_int), value :: scope
      integer(c_int), intent(out) :: n
      type(c_ptr), intent(out) :: domains
    end function c_dart_domain_scope_domains
    integer(c_int) function c_dart_team_locality_split(team, scope, n, newteam) &
        bind(C, name='dart_team_locality_split')
      import :: c_int, c_int16_t, c_size_t
      integer(c_int16_t), value :: team
      integer(c_int), value :: scope
      integer(c_size_t), value :: n
      integer(c_int16_t), intent(out) :: newteam
    end function c_dart_team_locality_split
    subroutine c_free(p) bind(C, name='free')
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine c_free
  end interface

  integer(c_int), parameter :: NOTFOUND = 3

contains

  !> Where team unit `unit` runs (local): its node (index), host (the node's name; "#i"
  !> for the i-th emulated node of a machine), NUMA domain, core and cpu, the cores of its
  !> node, the NUMA domains of its machine and the tag of its core domain. team defaults
  !> to DART_TEAM_ALL; every output is optional and written only on success.
  subroutine dart_unit_locality(unit, team, host, node, numa_id, core_id, cpu_id, num_cores, &
                                num_numa, domain_tag, stat, errmsg)
    integer, intent(in) :: unit
    integer(DART_TEAM_KIND), intent(in), optional :: team
    character(len=*), intent(inout), optional :: host, domain_tag
    integer, intent(inout), optional :: node, numa_id, core_id, cpu_id, num_cores, num_numa
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int16_t) :: t
    integer(c_int32_t) :: gu, nd
    type(c_ptr) :: p
    type(c_unit_locality), pointer :: loc
    integer(c_int) :: rc
    t = DART_TEAM_ALL
    if (present(team)) t = team
    rc = c_dart_unit_locality(t, int(unit, c_int32_t), p)
    if (rc == DART_OK) rc = c_dart_team_unit_l2g(t, int(unit, c_int32_t), gu)
    if (rc == DART_OK) rc = c_dart_unit_node(gu, nd)
    if (rc == DART_OK) then
      call c_f_pointer(p, loc)
      if (present(host)) host = dartf_c_string(c_loc(loc%hwinfo%host))
      if (present(domain_tag)) domain_tag = dartf_c_string(c_loc(loc%domain_tag))
      if (present(node)) node = int(nd)
      if (present(numa_id)) numa_id = int(loc%hwinfo%numa_id)
      if (present(core_id)) core_id = int(loc%hwinfo%core_id)
      if (present(cpu_id)) cpu_id = int(loc%hwinfo%cpu_id)
      if (present(num_cores)) num_cores = int(loc%hwinfo%num_cores)
      if (present(num_numa)) num_numa = int(loc%hwinfo%num_numa)
    end if
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_unit_locality', stat, errmsg)
  end subroutine dart_unit_locality

  !> The team's domains of `scope` (DART_LOCALITY_SCOPE_*), in tree order, as C pointers
  !> (an array the caller frees with c_free); n = 0 when there is none.
  subroutine scope_domains(scope, team, n, list, rc)
    integer, intent(in) :: scope
    integer(c_int16_t), intent(in) :: team
    integer(c_int), intent(out) :: n
    type(c_ptr), intent(out) :: list
    integer(c_int), intent(out) :: rc
    type(c_ptr) :: root
    n = 0
    list = c_null_ptr
    rc = c_dart_domain_team_locality(team, '.' // c_null_char, root)
    if (rc == DART_OK) rc = c_dart_domain_scope_domains(root, int(scope, c_int), n, list)
    if (rc == NOTFOUND) then  ! no domain of that scope: none
      rc = DART_OK
      n = 0
    end if
  end subroutine scope_domains

  !> n = the number of the team's domains of `scope` (local; 0 if none).
  subroutine dart_locality_num_domains(scope, n, team, stat, errmsg)
    integer, intent(in) :: scope
    integer, intent(inout) :: n
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int16_t) :: t
    integer(c_int) :: k, rc
    type(c_ptr) :: list
    t = DART_TEAM_ALL
    if (present(team)) t = team
    call scope_domains(scope, t, k, list, rc)
    if (c_associated(list)) call c_free(list)
    if (rc == DART_OK) n = int(k)
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_locality_num_domains', stat, errmsg)
  end subroutine dart_locality_num_domains

  !> Domain `index` (0-based, tree order) of the team's domains of `scope` (local): its
  !> units (global ids, ascending), host, tag and node index (-1 above nodes).
  subroutine dart_locality_domain(scope, index, units, host, tag, node, team, stat, errmsg)
    integer, intent(in) :: scope, index
    integer, allocatable, intent(inout), optional :: units(:)
    character(len=*), intent(inout), optional :: host, tag
    integer, intent(inout), optional :: node
    integer(DART_TEAM_KIND), intent(in), optional :: team
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int16_t) :: t
    integer(c_int) :: k, rc
    type(c_ptr) :: list
    type(c_ptr), pointer :: doms(:)
    type(c_domain), pointer :: d
    integer(c_int32_t), pointer :: ids(:)
    character(len=80) :: what
    t = DART_TEAM_ALL
    if (present(team)) t = team
    call scope_domains(scope, t, k, list, rc)
    if (rc == DART_OK .and. (index < 0 .or. index >= k)) then
      if (c_associated(list)) call c_free(list)
      write(what, '(a,i0,a,i0,a)') 'index ', index, ' out of range (the scope has ', k, &
        ' domains)'
      call dartf_fail(DART_ERR_INVAL, 'dart_locality_domain', trim(what), stat, errmsg)
      return
    end if
    if (rc == DART_OK) then
      call c_f_pointer(list, doms, [k])
      call c_f_pointer(doms(index + 1), d)
      if (present(units)) then
        if (allocated(units)) deallocate(units)
        allocate(units(d%num_units))
        if (d%num_units > 0) then
          call c_f_pointer(d%unit_ids, ids, [d%num_units])
          units = int(ids)
        end if
      end if
      if (present(host)) host = dartf_c_string(c_loc(d%host))
      if (present(tag)) tag = dartf_c_string(c_loc(d%domain_tag))
      if (present(node)) node = int(d%node_id)
    end if
    if (c_associated(list)) call c_free(list)
    if (rc /= DART_OK .or. present(stat)) call dartf_finish(rc, 'dart_locality_domain', stat, errmsg)
  end subroutine dart_locality_domain

  !> Collective over team: split it into min(n, #domains of scope) teams of whole domains
  !> (DART_LOCALITY_SCOPE_NODE: one team per node for n >= the number of nodes); newteam
  !> is the calling unit's (DART_TEAM_NULL after a failure).
  subroutine dart_team_locality_split(team, scope, n, newteam, stat, errmsg)
    integer(DART_TEAM_KIND), intent(in) :: team
    integer, intent(in) :: scope, n
    integer(DART_TEAM_KIND), intent(inout) :: newteam
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int16_t) :: t
    integer(c_int) :: rc
    t = DART_TEAM_NULL
    if (n < 1) then
      newteam = DART_TEAM_NULL
      call dartf_fail(DART_ERR_INVAL, 'dart_team_locality_split', 'n must be at least 1', &
        stat, errmsg)
      return
    end if
    rc = c_dart_team_locality_split(team, int(scope, c_int), int(n, c_size_t), t)
    newteam = t
    if (rc /= DART_OK .or. present(stat)) &
      call dartf_finish(rc, 'dart_team_locality_split', stat, errmsg)
  end subroutine dart_team_locality_split

end module dart_locality_f
