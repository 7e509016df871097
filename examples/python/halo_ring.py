# SPDX-License-Identifier: BSD-3-Clause
"""The README's halo exchange: every unit gets its ring neighbours' edge columns."""
import dartpy as dart                               # mpiexec -n 4 python halo_ring.py
dart.init()
me, n = dart.myid(), dart.size()
with dart.zeros(dart.TEAM_ALL, (4, 8)) as a:        # my part: 4 x 8, ghost columns 0 and 7
    u = a.local                                      # a NumPy view of it (no copy)
    u[:, 1:7] = me
    dart.barrier()                                   # all parts written
    dart.get_blocking(u[:, 0], a.gptr_of((me - 1) % n) + 6, remote_stride=8)  # left's column 6
    dart.get_blocking(u[:, 7], a.gptr_of((me + 1) % n) + 1, remote_stride=8)  # right's column 1
    print(f"unit {me}: ghosts {int(u[0, 0])} {int(u[0, 7])}")
    dart.barrier(); del u                            # neighbours done; no view outlives the free
dart.exit()
