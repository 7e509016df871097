# SPDX-License-Identifier: BSD-3-Clause
"""The reductions of dart.Array on four fields, printed as the bytes of each result: the
twin of examples/c/reduce_identity.c and examples/fortran/reduce_identity.f90, whose
header describes the fields and the output (the three print the same lines on any number
of units: the sums are taken in one fixed order, the core's).

    mpiexec -n 4 python examples/python/reduce_identity.py
"""

import numpy as np

import dartpy as dart


def field(shape, dtype, second):
    """a = ((31 i + 17 j + 7 k) % 1000 - 500) / 7 or b = ((7 i + 3 j + 11 k) % 100 + 1) / 3
    at global C indices (k = 0 in 2D): one correctly rounded division in the dtype."""
    idx = np.indices(shape, dtype=np.int64)
    i, j = idx[0], idx[1]
    k = idx[2] if len(shape) == 3 else 0
    if second:
        num, den = (i * 7 + j * 3 + k * 11) % 100 + 1, 3
    else:
        num, den = (i * 31 + j * 17 + k * 7) % 1000 - 500, 7
    return num.astype(dtype) / dtype(den)


def show(name, what, value):
    """"<field> <what> <hex>" on unit 0, after checking every unit has the same bytes."""
    mine = np.frombuffer(np.asarray(value).tobytes(), dtype=np.uint8).copy()
    every = np.zeros(mine.size * dart.size(), dtype=np.uint8)
    dart.allgather(mine, every)
    if any((every.reshape(dart.size(), -1) != mine).any(axis=1)):
        raise SystemExit(f"reduce_identity: {name} {what} differs between units")
    if dart.myid() == 0:
        print(name, what, mine.tobytes().hex(), flush=True)


def main():
    dart.init()
    for name, dtype, shape in (
        ("d2", np.float64, (13, 11)),
        ("f2", np.float32, (13, 11)),
        ("d3", np.float64, (7, 6, 5)),
        ("f3", np.float32, (7, 6, 5)),
    ):
        with dart.Array(shape, dtype, halo=1) as a, dart.Array(shape, dtype, halo=1) as b:
            part = tuple(slice(lo, hi) for lo, hi in zip(a.lo, a.hi))
            a.interior[...] = field(shape, dtype, False)[part]
            b.interior[...] = field(shape, dtype, True)[part]
            show(name, "sum", a.sum())
            show(name, "min", a.min())
            show(name, "max", a.max())
            show(name, "norm1", np.float64(dart.norm(a, 1)))
            show(name, "norm2", np.float64(dart.norm(a, 2)))
            show(name, "norminf", np.float64(dart.norm(a, np.inf)))
            show(name, "dot", dart.dot(a, b))
    dart.exit()


if __name__ == "__main__":
    main()
