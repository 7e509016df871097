# SPDX-License-Identifier: BSD-3-Clause
"""The README's first example: a distributed array that owns its ghost layers."""
import numpy as np
import dartpy as dart                              # mpiexec -n 4 python halo_array.py
dart.init()
with dart.Array((6, 8), np.float64, halo=1, boundary="periodic") as a:
    (i0, j0), (i1, j1) = a.lo, a.hi                # my block: global rows i0..i1-1, columns j0..j1-1
    i, j = np.ogrid[i0:i1, j0:j1]                  # its global indices
    a.interior[...] = 100 * i + j                  # a NumPy view of my block (no copy)
    a.update_halo()                                # one call: every ghost from its neighbour
    print(f"unit {dart.myid()}: rows {i0}..{i1 - 1}, columns {j0}..{j1 - 1}, "
          f"west ghost {a.local[1, 0]:g}")         # the point [i0, j0 - 1], wrapped
dart.exit()
