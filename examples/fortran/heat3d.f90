! heat3d: the 3D heat conduction of the IJNC 2017 paper: explicit finite differences
! (7-point stencil) on an nx x ny x nz grid of float64 with fixed boundary temperatures,
! checkerboard 3D decomposition over the units, six neighbours, halos of width 1 filled
! with DART one-sided gets (blocking / nonblocking). The Fortran twin of
! examples/cpp/heat3d.cc and examples/python/heat3d.py (same command line, same bytes).
!
!   mpiexec -n 4 ./heat3d_f --nx 32 --ny 32 --nz 32 --iters 50 --mode blocking --out u.bin
!
! The field u[i][j][k] of the C and Python versions (k contiguous) is u(k, j, i) here.
! Boundary points are fixed: 1 on the face i = 0, 0.5 on j = 0 (i >= 1), 0.25 on k = 0
! (i, j >= 1), 0 on the other three faces; the interior starts at 0 and becomes
!     lap  = ((u(i-1) + u(i+1)) + (u(j-1) + u(j+1))) + (u(k-1) + u(k+1))
!     unew = u + 0.125 * (lap - 6 u)
! (neighbours named by the index that differs; this grouping in every language).
!
! The local block u(0:lz+1, 0:ly+1, 0:lx+1) is dart_local's view of a collective
! allocation. A halo face is a Fortran section of it: the i-face u(1:lz, 1:ly, 0) (blocks
! of lz points, stride lz+2: a strided type), the j-face u(1:lz, 0, 1:lx) (blocks of lz,
! one plane apart: strided), the k-face u(0, 1:ly, 1:lx) (single points on two strides:
! an indexed type); the module derives these from the sections. The remote side of each
! face is the same face of the neighbour's block, whose strides differ: a remote DART
! type per face, built here with dart_type_create_strided / _indexed. Mode `notify` puts
! the same sections into the neighbours' halos with dart_put_notify, no barrier.
program heat3d
  use, intrinsic :: iso_fortran_env, only: real64, int64, output_unit
  use dart
  use heat_common
  implicit none
  type(heat_args) :: args
  integer :: me, n, dims(3), nn(3), mc(3), lo(3), ll(3), cap, u, k, it, h, nh, cur
  integer :: a, b, c, d, side, nc(3)
  integer(int64) :: nnodes
  type(dart_gptr) :: field(0:1), mine, src
  type :: view
    real(real64), pointer :: p(:, :, :) => null()
  end type view
  type(view) :: loc(0:1)
  real(real64), pointer :: uu(:, :, :), un(:, :, :)
  ! halo h: neighbour, element offset there, remote type, dimension, my layer
  integer :: hunit(6), hoff(6), hdim(6), hlayer(6)
  integer(DART_DATATYPE_KIND) :: htype(6)
  ! mode notify, face h (to neighbour hunit(h)): element offset of its halo layer there,
  ! my layer that goes there; counters: one per iterate parity per unit
  integer :: poff(6), player(6)
  type(dart_gptr) :: counters
  type(dart_handle) :: handles(6)
  real(real64), allocatable :: glob(:, :, :)
  real(real64), allocatable :: t_iter(:)   ! halo exchange per iteration: mean and median
  real(real64) :: t0, t1, t2, t3, t_halo, t_compute, halo, compute, per, hmedian
  integer(DART_DATATYPE_KIND) :: planetype
  integer :: ob(3, 2)

  call dart_init()
  args = parse_args('heat3d_f', .true.)
  call dart_myid(me)
  call dart_size(n)
  nn = [args%nx, args%ny, args%nz]
  dims = dims_create(n, 3)
  if (any(nn < dims)) then
    if (me == 0) write(0, '(a,i0,a,i0,a,i0,a)') 'heat3d: the grid is too small for ', &
      dims(1), ' x ', dims(2), ' x ', dims(3), ' units'
    call dart_exit()
    stop 2
  end if
  mc = coords(me)
  ob = block_of(me)
  lo = ob(:, 1)
  ll = ob(:, 2)

  ! Two collective allocations, each large enough for the largest block with halos.
  cap = 0
  do u = 0, n - 1
    ob = block_of(u)
    cap = max(cap, product(ob(:, 2) + 2))
  end do
  do k = 0, 1
    call dart_team_memalloc_aligned(DART_TEAM_ALL, cap, DART_TYPE_DOUBLE, field(k))
    mine = field(k)
    call dart_gptr_setunit(mine, me)
    call dart_local(mine, loc(k)%p, [ll(3) + 2, ll(2) + 2, ll(1) + 2])
    loc(k)%p(0:, 0:, 0:) => loc(k)%p
  end do
  do k = 0, 1
    loc(k)%p = 0
    do a = 1, ll(1)
      do b = 1, ll(2)
        do c = 1, ll(3)
          loc(k)%p(c, b, a) = boundary_value(lo(1) + a - 1, lo(2) + b - 1, lo(3) + c - 1)
        end do
      end do
    end do
  end do

  ! The six halos: lower neighbour (side -1): its last interior layer -> my layer 0;
  ! upper neighbour (side +1): its first interior layer -> my layer l+1.
  nh = 0
  do d = 1, 3
    do side = -1, 1, 2
      nc = mc
      nc(d) = nc(d) + side
      u = unit_at(nc)
      if (u < 0) cycle
      nh = nh + 1
      hunit(nh) = u
      hdim(nh) = d
      ob = block_of(u)
      if (side < 0) then
        hlayer(nh) = 0
        hoff(nh) = at(ob(:, 2), merge(ob(d, 2), 1, d == 1), merge(ob(d, 2), 1, d == 2), &
                      merge(ob(d, 2), 1, d == 3))
        player(nh) = 1                 ! notify: my layer 1 -> its layer l+1
        poff(nh) = at(ob(:, 2), merge(ob(d, 2) + 1, 1, d == 1), &
                      merge(ob(d, 2) + 1, 1, d == 2), merge(ob(d, 2) + 1, 1, d == 3))
      else
        hlayer(nh) = ll(d) + 1
        hoff(nh) = at(ob(:, 2), 1, 1, 1)
        player(nh) = ll(d)             ! notify: my last layer -> its layer 0
        poff(nh) = at(ob(:, 2), merge(0, 1, d == 1), merge(0, 1, d == 2), merge(0, 1, d == 3))
      end if
      htype(nh) = face_type(ob(:, 2), d)
    end do
  end do

  ! Mode notify: each face of iterate k adds 1 to the neighbour's counter k (parity). No
  ! barrier: a neighbour writes faces of iterate k+2 (the same buffers and counter) only
  ! after this unit pushed k+1, which it does after reading its halos of k; two counters
  ! keep a fast neighbour's k+1 notification from counting as a slow one's k.
  if (args%notify) then
    call dart_notify_alloc(DART_TEAM_ALL, 2, counters)
    do h = 1, nh
      call put_face(h, 0)              ! the halos of the initial state
    end do
  end if

  allocate(t_iter(args%iters))
  t_iter = 0
  t_compute = 0
  cur = 0
  do it = 1, args%iters
    uu => loc(cur)%p
    un => loc(1 - cur)%p
    t0 = wtime()
    if (args%notify) then
      call dart_notify_wait(counter_of(counters, me, cur), int(nh, int64))   ! my halos of `cur`
      t1 = wtime()
      call update_all()
      t2 = wtime()
      do h = 1, nh
        call put_face(h, 1 - cur)
      end do
      t_iter(it) = (t1 - t0) + (wtime() - t2)
      t_compute = t_compute + (t2 - t1)
      cur = 1 - cur
      cycle
    end if
    call dart_barrier(DART_TEAM_ALL)
    do h = 1, nh
      src = field(cur)
      call dart_gptr_setunit(src, hunit(h))
      call dart_gptr_incaddr(src, 8 * hoff(h))
      call get_face(h)
    end do
    t1 = wtime()
    if (.not. args%nonblocking) then
      call update_all()
      t_iter(it) = (t1 - t0)
      t_compute = t_compute + (wtime() - t1)
    else
      do a = 2, ll(1) - 1
        do b = 2, ll(2) - 1
          do c = 2, ll(3) - 1
            call update(uu, un, a, b, c)
          end do
        end do
      end do
      t2 = wtime()
      call dart_waitall(handles(1:nh))
      t3 = wtime()
      do a = 1, ll(1)
        do b = 1, ll(2)
          do c = 1, ll(3)
            if (a == 1 .or. a == ll(1) .or. b == 1 .or. b == ll(2) .or. c == 1 .or. &
                c == ll(3)) call update(uu, un, a, b, c)
          end do
        end do
      end do
      t_iter(it) = (t1 - t0) + (t3 - t2)
      t_compute = t_compute + (t2 - t1) + (wtime() - t3)
    end if
    cur = 1 - cur
  end do
  call dart_barrier(DART_TEAM_ALL)

  ! Unit 0 gets every block plane by plane: a strided type there (the plane's rows inside
  ! the halo ring), a 2D sub-block section of glob here.
  if (me == 0) then
    allocate(glob(0:nn(3) - 1, 0:nn(2) - 1, 0:nn(1) - 1))
    glob = 0
    do u = 0, n - 1
      ob = block_of(u)
      call dart_type_create_strided(DART_TYPE_DOUBLE, ob(3, 2) + 2, ob(3, 2), planetype)
      do a = 1, ob(1, 2)
        src = field(cur)
        call dart_gptr_setunit(src, u)
        call dart_gptr_incaddr(src, 8 * at(ob(:, 2), a, 1, 1))
        call dart_get_blocking(glob(ob(3, 1):ob(3, 1) + ob(3, 2) - 1, &
                                    ob(2, 1):ob(2, 1) + ob(2, 2) - 1, ob(1, 1) + a - 1), &
                               src, remote_type=planetype)
      end do
      call dart_type_destroy(planetype)
    end do
    call write_field(args%out, reshape(glob, [size(glob)]))
  end if
  t_halo = sum(t_iter)
  halo = max_over_units(t_halo)
  hmedian = max_over_units(median(t_iter))
  compute = max_over_units(t_compute)
  if (me == 0) then
    call dart_node_count(nnodes)
    per = 0
    if (args%iters > 0) per = 1.0e6_real64 / args%iters
    write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') &
      'heat3d (Fortran): ', n, ' units (', dims(1), ' x ', dims(2), ' x ', dims(3), ') on ', &
      nnodes, ' node(s), grid ', nn(1), ' x ', nn(2), ' x ', nn(3), ', ', args%iters, &
      ' iterations, ', args%mode
    write(output_unit, '(a,f0.2,a,f0.2,a)') 'time per iteration: compute ', compute * per, &
      ' us, halo exchange ', halo * per, ' us (max over units)'
    write(output_unit, '(a,f0.2,a)') 'halo exchange median ', hmedian * 1.0e6_real64, &
      ' us per iteration (max over units)'
    write(output_unit, '(a,es24.16e3)') 'checksum: ', checksum(reshape(glob, [size(glob)]))
    if (len(args%out) > 0) write(output_unit, '(a)') 'wrote ' // args%out
  end if
  call dart_barrier(DART_TEAM_ALL)
  do h = 1, nh
    call dart_type_destroy(htype(h))
  end do
  if (args%notify) call dart_notify_free(counters)
  do k = 0, 1
    call dart_team_memfree(field(k))
  end do
  call dart_exit()

contains

  pure real(real64) function boundary_value(i, j, k)
    integer, intent(in) :: i, j, k
    boundary_value = 0
    if (i == 0) then
      boundary_value = 1
    else if (j == 0) then
      boundary_value = 0.5_real64
    else if (k == 0) then
      boundary_value = 0.25_real64
    end if
  end function boundary_value

  !> Process-grid coordinates of a unit (row-major over dims: the last varies fastest).
  function coords(unit) result(cc)
    integer, intent(in) :: unit
    integer :: cc(3)
    cc(3) = mod(unit, dims(3))
    cc(2) = mod(unit / dims(3), dims(2))
    cc(1) = unit / (dims(2) * dims(3))
  end function coords

  integer function unit_at(cc)
    integer, intent(in) :: cc(3)
    unit_at = -1
    if (all(cc >= 0 .and. cc < dims)) unit_at = (cc(1) * dims(2) + cc(2)) * dims(3) + cc(3)
  end function unit_at

  !> (start, length) per dimension of a unit's block: column 1 starts, column 2 lengths.
  function block_of(unit) result(bl)
    integer, intent(in) :: unit
    integer :: bl(3, 2), cc(3), dd, r(2)
    cc = coords(unit)
    do dd = 1, 3
      r = block(nn(dd), dims(dd), cc(dd))
      bl(dd, :) = r
    end do
  end function block_of

  !> Element offset of local point (a, b, c) in a block of extents l (halos included).
  pure integer function at(l, a, b, c)
    integer, intent(in) :: l(3), a, b, c
    at = (a * (l(2) + 2) + b) * (l(3) + 2) + c
  end function at

  !> The remote type of the face across dimension d of a block of extents l (the face's
  !> own extents are those of my block: neighbours across a face share them).
  function face_type(l, d) result(t)
    integer, intent(in) :: l(3), d
    integer(DART_DATATYPE_KIND) :: t
    integer(int64), allocatable :: lens(:), offs(:)
    integer :: aa, bb
    select case (d)
    case (1)     ! rows of lz points, stride lz+2
      call dart_type_create_strided(DART_TYPE_DOUBLE, l(3) + 2, ll(3), t)
    case (2)     ! rows of lz points, one plane apart
      call dart_type_create_strided(DART_TYPE_DOUBLE, (l(2) + 2) * (l(3) + 2), ll(3), t)
    case default ! single points on two strides
      allocate(lens(ll(1) * ll(2)), offs(0))
      lens = 1
      do aa = 0, ll(1) - 1
        do bb = 0, ll(2) - 1
          offs = [offs, int(aa * (l(2) + 2) * (l(3) + 2) + bb * (l(3) + 2), int64)]
        end do
      end do
      call dart_type_create_indexed(DART_TYPE_DOUBLE, lens, offs, t)
    end select
  end function face_type

  !> The get of halo h into its face section of the current iterate.
  subroutine get_face(h)
    integer, intent(in) :: h
    integer :: m
    m = hlayer(h)
    select case (hdim(h))
    case (1)
      if (args%nonblocking) then
        call dart_get_handle(loc(cur)%p(1:ll(3), 1:ll(2), m), src, handles(h), remote_type=htype(h))
      else
        call dart_get_blocking(loc(cur)%p(1:ll(3), 1:ll(2), m), src, remote_type=htype(h))
      end if
    case (2)
      if (args%nonblocking) then
        call dart_get_handle(loc(cur)%p(1:ll(3), m, 1:ll(1)), src, handles(h), remote_type=htype(h))
      else
        call dart_get_blocking(loc(cur)%p(1:ll(3), m, 1:ll(1)), src, remote_type=htype(h))
      end if
    case default
      if (args%nonblocking) then
        call dart_get_handle(loc(cur)%p(m, 1:ll(2), 1:ll(1)), src, handles(h), remote_type=htype(h))
      else
        call dart_get_blocking(loc(cur)%p(m, 1:ll(2), 1:ll(1)), src, remote_type=htype(h))
      end if
    end select
  end subroutine get_face

  !> Mode notify: my face section of iterate k -> neighbour hunit(h)'s halo of iterate k.
  subroutine put_face(h, k)
    integer, intent(in) :: h, k
    type(dart_gptr) :: dst
    integer :: m
    dst = field(k)
    call dart_gptr_setunit(dst, hunit(h))
    call dart_gptr_incaddr(dst, 8 * poff(h))
    m = player(h)
    select case (hdim(h))
    case (1)
      call dart_put_notify(dst, loc(k)%p(1:ll(3), 1:ll(2), m), counter_of(counters, hunit(h), k), &
                           1_int64, remote_type=htype(h))
    case (2)
      call dart_put_notify(dst, loc(k)%p(1:ll(3), m, 1:ll(1)), counter_of(counters, hunit(h), k), &
                           1_int64, remote_type=htype(h))
    case default
      call dart_put_notify(dst, loc(k)%p(m, 1:ll(2), 1:ll(1)), counter_of(counters, hunit(h), k), &
                           1_int64, remote_type=htype(h))
    end select
  end subroutine put_face

  !> Every point of the block: iterate uu -> un.
  subroutine update_all()
    integer :: a, b, c
    do a = 1, ll(1)
      do b = 1, ll(2)
        do c = 1, ll(3)
          call update(uu, un, a, b, c)
        end do
      end do
    end do
  end subroutine update_all

  !> One point: fixed on the global boundary, the stencil elsewhere.
  subroutine update(u0, u1, a, b, c)
    real(real64), intent(in) :: u0(0:, 0:, 0:)
    real(real64), intent(inout) :: u1(0:, 0:, 0:)
    integer, intent(in) :: a, b, c
    integer :: i, j, k
    real(real64) :: lap
    i = lo(1) + a - 1
    j = lo(2) + b - 1
    k = lo(3) + c - 1
    if (i == 0 .or. j == 0 .or. k == 0 .or. i == nn(1) - 1 .or. j == nn(2) - 1 .or. &
        k == nn(3) - 1) then
      u1(c, b, a) = u0(c, b, a)
      return
    end if
    lap = ((u0(c, b, a - 1) + u0(c, b, a + 1)) + (u0(c, b - 1, a) + u0(c, b + 1, a))) + &
          (u0(c - 1, b, a) + u0(c + 1, b, a))
    u1(c, b, a) = u0(c, b, a) + 0.125_real64 * (lap - 6.0_real64 * u0(c, b, a))
  end subroutine update

end program heat3d
