! heat2d: Jacobi iteration of the 2D heat equation (5-point stencil) on an nx x ny grid
! of float64, block-decomposed over a 2D grid of units, halos of width 1 filled with
! DART one-sided gets. The Fortran twin of examples/cpp/heat2d.cc and
! examples/python/heat2d.py: the same command line, the same arithmetic, the same bytes.
!
!   mpiexec -n 4 ./heat2d_f --nx 64 --ny 64 --iters 100 --mode nonblocking --out u.bin
!
! The field u[i][j] of the C and Python versions (j contiguous) is, in Fortran's
! column-major order, u(j, i): the contiguous index comes first. Boundary points are fixed
! (1 on row i = 0, 0.5 on column j = 0, 0 on the last row and column); every other point
! starts at 0 and becomes
!     0.25 * ((u(j, i-1) + u(j, i+1)) + (u(j-1, i) + u(j+1, i)))
! (the grouping of the other languages, so that the bytes agree).
!
! Each unit owns a block of lnx x lny points, with a ring of halo points, in a local array
! u(0:lny+1, 0:lnx+1) that is dart_local's view of a collective allocation (two: the
! current and the next iterate). The halos are Fortran array sections: the rows from the
! north/south neighbours u(1:lny, 0) are contiguous; the columns from the west/east
! neighbours u(0, 1:lnx) are strided, and go straight into the section (the module
! describes it by a strided DART type; the remote side is a strided type too). Mode
! `nonblocking` starts dart_get_handle for all four halos, updates the points that need
! no halo, waits (dart_waitall), then updates the block's outer ring. Mode `notify` has
! no barrier: each unit puts its faces into the neighbours' halos with dart_put_notify
! and waits for its own counters (dart_notify_wait).
program heat2d
  use, intrinsic :: iso_fortran_env, only: real64, int64, output_unit
  use dart
  use heat_common
  implicit none
  type(heat_args) :: args
  integer :: me, n, nx, ny, px, py, cx, cy, i0, lnx, j0, lny, ld, cap, u, k, it, h, nh
  integer :: dims(2), r(2), c(2), cur, a, b
  integer(int64) :: nnodes
  type(dart_gptr) :: field(0:1), mine, src
  type :: view
    real(real64), pointer :: p(:, :) => null()
  end type view
  type(view) :: loc(0:1)
  real(real64), pointer :: uu(:, :), un(:, :)
  ! halo h: neighbour, element offset there, remote type, my row (-1: a column), my column
  integer :: hunit(4), hoff(4), hrow(4), hcol(4)
  integer(DART_DATATYPE_KIND) :: htype(4)
  ! mode notify, face h (to neighbour hunit(h)): element offset of its halo there, my row
  ! or column that goes there; counters: one per iterate parity per unit
  integer :: poff(4), pline(4)
  type(dart_gptr) :: counters
  type(dart_handle) :: handles(4)
  real(real64), allocatable, target :: glob(:, :)
  real(real64) :: t0, t1, t2, t3, t_halo, t_compute, halo, compute, per
  integer(DART_DATATYPE_KIND) :: blocktype

  call dart_init()
  args = parse_args('heat2d_f', .false.)
  call dart_myid(me)
  call dart_size(n)
  nx = args%nx
  ny = args%ny

  ! Process grid and every unit's block (computable anywhere: no communication).
  dims = dims_create(n, 2)
  px = dims(1)
  py = dims(2)
  if (nx < px .or. ny < py) then
    if (me == 0) write(0, '(a,i0,a,i0,a,i0,a,i0,a)') 'heat2d: grid ', nx, ' x ', ny, &
      ' is too small for ', px, ' x ', py, ' units'
    call dart_exit()
    stop 2
  end if
  cx = me / py
  cy = mod(me, py)
  r = block(nx, px, cx)
  c = block(ny, py, cy)
  i0 = r(1)
  lnx = r(2)
  j0 = c(1)
  lny = c(2)
  ld = lny + 2                       ! elements per local row, halos included

  ! Two collective allocations, each large enough for the largest block with halos.
  cap = 0
  do u = 0, n - 1
    r = block(nx, px, u / py)
    c = block(ny, py, mod(u, py))
    cap = max(cap, (r(2) + 2) * (c(2) + 2))
  end do
  do k = 0, 1
    call dart_team_memalloc_aligned(DART_TEAM_ALL, cap, DART_TYPE_DOUBLE, field(k))
    mine = field(k)
    call dart_gptr_setunit(mine, me)
    call dart_local(mine, loc(k)%p, [ld, lnx + 2])
    loc(k)%p(0:, 0:) => loc(k)%p
  end do

  ! Initial state (halos 0; global-boundary halos are never read).
  do k = 0, 1
    loc(k)%p = 0
    do a = 1, lnx
      do b = 1, lny
        loc(k)%p(b, a) = boundary_value(i0 + a - 1, j0 + b - 1)
      end do
    end do
  end do

  ! The halos: (neighbour, element offset there, remote type, my row or column).
  nh = 0
  u = unit_at(cx - 1, cy)                       ! north: its last row -> my row 0
  if (u >= 0) call add_halo(u, .true., 0)
  u = unit_at(cx + 1, cy)                       ! south: its row 1 -> my row lnx+1
  if (u >= 0) call add_halo(u, .true., lnx + 1)
  u = unit_at(cx, cy - 1)                       ! west: its last column -> my column 0
  if (u >= 0) call add_halo(u, .false., 0)
  u = unit_at(cx, cy + 1)                       ! east: its column 1 -> my column lny+1
  if (u >= 0) call add_halo(u, .false., lny + 1)

  ! Mode notify: each face of iterate k adds 1 to the neighbour's counter k (parity). No
  ! barrier is needed: a neighbour writes faces of iterate k+2 (the same buffers and
  ! counter) only after this unit pushed k+1, which it does after reading its halos of
  ! k; two counters keep a fast neighbour's k+1 notification from counting as a slow
  ! neighbour's k (examples/cpp/heat2d.cc).
  if (args%notify) then
    call dart_notify_alloc(DART_TEAM_ALL, 2, counters)
    call push_faces(0)                 ! the halos of the initial state
  end if

  t_halo = 0
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
      call push_faces(1 - cur)
      t_halo = t_halo + (t1 - t0) + (wtime() - t2)
      t_compute = t_compute + (t2 - t1)
      cur = 1 - cur
      cycle
    end if
    call dart_barrier(DART_TEAM_ALL)   ! neighbours are done writing `cur`
    do h = 1, nh
      src = field(cur)
      call dart_gptr_setunit(src, hunit(h))
      call dart_gptr_incaddr(src, 8 * hoff(h))
      if (hrow(h) >= 0) then           ! a row: contiguous here
        if (args%nonblocking) then
          call dart_get_handle(loc(cur)%p(1:lny, hrow(h)), src, handles(h), remote_type=htype(h))
        else
          call dart_get_blocking(loc(cur)%p(1:lny, hrow(h)), src, remote_type=htype(h))
        end if
      else                             ! a column: a strided section here
        if (args%nonblocking) then
          call dart_get_handle(loc(cur)%p(hcol(h), 1:lnx), src, handles(h), remote_type=htype(h))
        else
          call dart_get_blocking(loc(cur)%p(hcol(h), 1:lnx), src, remote_type=htype(h))
        end if
      end if
    end do
    t1 = wtime()
    if (.not. args%nonblocking) then
      call update_all()
      t_halo = t_halo + (t1 - t0)
      t_compute = t_compute + (wtime() - t1)
    else
      do a = 2, lnx - 1                ! needs no halo
        do b = 2, lny - 1
          call update(uu, un, a, b)
        end do
      end do
      t2 = wtime()
      call dart_waitall(handles(1:nh))
      t3 = wtime()
      do a = 1, lnx                    ! the block's outer ring
        do b = 1, lny
          if (a == 1 .or. a == lnx .or. b == 1 .or. b == lny) call update(uu, un, a, b)
        end do
      end do
      t_halo = t_halo + (t1 - t0) + (t3 - t2)
      t_compute = t_compute + (t2 - t1) + (wtime() - t3)
    end if
    cur = 1 - cur
  end do
  call dart_barrier(DART_TEAM_ALL)

  ! Unit 0 gets every block with one get: a strided type there (rows of the block inside
  ! the halo ring), the sub-block section glob(j0:, i0:) here.
  if (me == 0) then
    allocate(glob(0:ny - 1, 0:nx - 1))
    glob = 0
    do u = 0, n - 1
      r = block(nx, px, u / py)
      c = block(ny, py, mod(u, py))
      src = field(cur)
      call dart_gptr_setunit(src, u)
      call dart_gptr_incaddr(src, 8 * ((c(2) + 2) + 1))
      call dart_type_create_strided(DART_TYPE_DOUBLE, c(2) + 2, c(2), blocktype)
      call dart_get_blocking(glob(c(1):c(1) + c(2) - 1, r(1):r(1) + r(2) - 1), src, &
                             remote_type=blocktype)
      call dart_type_destroy(blocktype)
    end do
    call write_field(args%out, reshape(glob, [nx * ny]))
  end if
  halo = max_over_units(t_halo)
  compute = max_over_units(t_compute)
  if (me == 0) then
    call dart_node_count(nnodes)
    per = 0
    if (args%iters > 0) per = 1.0e6_real64 / args%iters
    write(output_unit, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,a)') 'heat2d (Fortran): ', n, &
      ' units (', px, ' x ', py, ') on ', nnodes, ' node(s), grid ', nx, ' x ', ny, ', ', &
      args%iters, ' iterations, ', args%mode
    write(output_unit, '(a,f0.2,a,f0.2,a)') 'time per iteration: compute ', compute * per, &
      ' us, halo exchange ', halo * per, ' us (max over units)'
    write(output_unit, '(a,es24.16e3)') 'checksum: ', checksum(reshape(glob, [nx * ny]))
    if (len(args%out) > 0) write(output_unit, '(a)') 'wrote ' // args%out
  end if
  call dart_barrier(DART_TEAM_ALL)
  do h = 1, nh
    if (htype(h) /= DART_TYPE_DOUBLE) call dart_type_destroy(htype(h))
  end do
  if (args%notify) call dart_notify_free(counters)
  do k = 0, 1
    call dart_team_memfree(field(k))
  end do
  call dart_exit()

contains

  pure real(real64) function boundary_value(i, j)
    integer, intent(in) :: i, j
    boundary_value = 0
    if (i == 0) then
      boundary_value = 1
    else if (j == 0) then
      boundary_value = 0.5_real64
    end if
  end function boundary_value

  integer function unit_at(x, y)
    integer, intent(in) :: x, y
    unit_at = -1
    if (x >= 0 .and. x < px .and. y >= 0 .and. y < py) unit_at = x * py + y
  end function unit_at

  !> A halo from unit nb: a row (its last or first interior row) into my row `line`, or a
  !> column into my column `line`.
  subroutine add_halo(nb, is_row, line)
    integer, intent(in) :: nb, line
    logical, intent(in) :: is_row
    integer :: nr, nc, rr(2), cc(2)
    rr = block(nx, px, nb / py)
    cc = block(ny, py, mod(nb, py))
    nr = rr(2)
    nc = cc(2)
    nh = nh + 1
    hunit(nh) = nb
    if (is_row) then
      hrow(nh) = line
      hcol(nh) = -1
      htype(nh) = DART_TYPE_DOUBLE          ! a row is contiguous there
      if (line == 0) then
        hoff(nh) = nr * (nc + 2) + 1        ! north: its row nr
        poff(nh) = (nr + 1) * (nc + 2) + 1  ! (notify: my row 1 -> its row nr+1)
        pline(nh) = 1
      else
        hoff(nh) = (nc + 2) + 1             ! south: its row 1
        poff(nh) = 1                        ! (notify: my row lnx -> its row 0)
        pline(nh) = lnx
      end if
    else
      hrow(nh) = -1
      hcol(nh) = line
      call dart_type_create_strided(DART_TYPE_DOUBLE, nc + 2, 1, htype(nh))
      if (line == 0) then
        hoff(nh) = (nc + 2) + nc            ! west: its column nc
        poff(nh) = (nc + 2) + nc + 1        ! (notify: my column 1 -> its column nc+1)
        pline(nh) = 1
      else
        hoff(nh) = (nc + 2) + 1             ! east: its column 1
        poff(nh) = nc + 2                   ! (notify: my column lny -> its column 0)
        pline(nh) = lny
      end if
    end if
  end subroutine add_halo

  !> Mode notify: my faces of iterate k -> the neighbours' halos of iterate k.
  subroutine push_faces(k)
    integer, intent(in) :: k
    type(dart_gptr) :: dst
    integer :: f
    do f = 1, nh
      dst = field(k)
      call dart_gptr_setunit(dst, hunit(f))
      call dart_gptr_incaddr(dst, 8 * poff(f))
      if (hrow(f) >= 0) then           ! a row: contiguous on both sides
        call dart_put_notify(dst, loc(k)%p(1:lny, pline(f)), counter_of(counters, hunit(f), k), 1_int64)
      else                             ! a column: strided section here, strided type there
        call dart_put_notify(dst, loc(k)%p(pline(f), 1:lnx), counter_of(counters, hunit(f), k), 1_int64, &
                             remote_type=htype(f))
      end if
    end do
  end subroutine push_faces

  !> Every point of the block: iterate uu -> un.
  subroutine update_all()
    integer :: a, b
    do a = 1, lnx
      do b = 1, lny
        call update(uu, un, a, b)
      end do
    end do
  end subroutine update_all

  !> One point: fixed on the global boundary, the stencil elsewhere.
  subroutine update(u0, u1, a, b)
    real(real64), intent(in) :: u0(0:, 0:)
    real(real64), intent(inout) :: u1(0:, 0:)
    integer, intent(in) :: a, b
    integer :: i, j
    i = i0 + a - 1
    j = j0 + b - 1
    if (i == 0 .or. j == 0 .or. i == nx - 1 .or. j == ny - 1) then
      u1(b, a) = u0(b, a)
    else
      u1(b, a) = 0.25_real64 * ((u0(b, a - 1) + u0(b, a + 1)) + (u0(b - 1, a) + u0(b + 1, a)))
    end if
  end subroutine update

end program heat2d
