# SPDX-License-Identifier: BSD-3-Clause
"""Python latency rows for benchmarks/run latency (2 processes under mpiexec).

  --impl dartpy   dartpy.put_blocking / dartpy.get_blocking, unit 0 -> unit 1 (placement
                  from the runtime: `node` = load/store path, `remote` = MPI RMA path with
                  DART_UNITS_PER_NODE=1)
  --impl mpi4py   mpi4py on the same MPI: Win.Put / Win.Get + Win.Flush on a Win.Allocate
                  window (placement `remote`, the RMA path), and a NumPy copy into / out of
                  the peer's part of a Win.Allocate_shared window (placement `node`);
                  also impl `mpi4py-create-shm`: Put/Get + Flush on a Win.Create window over
                  the shared segment, the window kind DART uses for `remote`

Same method and CSV columns as bench_common.h: rank 0 calibrates a batch size K so that a
batch takes >= --batch-us, runs one warm-up batch and R timed batches (31; 21 from 1 MiB;
5 with --quick); median and min of the per-call times. Rank 1 waits in a broadcast (inside
MPI) during each batch. Both implementations run with MPI_THREAD_SERIALIZED.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

ALL_SIZES = [8, 64, 1024, 8192, 65536, 1 << 20, 4 << 20]
QUICK_SIZES = [8, 1024, 65536, 1 << 20]


def parse_size(s: str) -> int:
    s = s.strip()
    mult = 1
    for suf, m in (("KiB", 1024), ("MiB", 1 << 20), ("K", 1024), ("M", 1 << 20), ("B", 1)):
        if s.endswith(suf):
            s, mult = s[: -len(suf)], m
            break
    return int(float(s) * mult)


class Harness:
    """Batch timing; `bcast(k)` announces a batch of k ops to rank 1 (0 ends a case)."""

    def __init__(self, rank, bcast, opts, out):
        self.rank, self.bcast, self.opts, self.out = rank, bcast, opts, out

    def reps(self, nbytes):
        if self.opts.quick:
            return 5
        return 21 if nbytes >= (1 << 20) else 31

    def run(self, impl, op, nbytes, placement, body):
        """body(k) runs k operations on rank 0. Collective over both ranks."""
        if self.rank != 0:
            while True:
                k = self.bcast(0)
                if k == 0:
                    return
            return
        target = self.opts.batch_us * 1e-6

        def batch(k):
            self.bcast(k)
            t0 = time.perf_counter()
            body(k)
            return time.perf_counter() - t0

        batch(1)
        k = 1
        while True:
            t = batch(k)
            if t >= target or k >= (1 << 22):
                break
            grow = min(max(np.ceil(1.2 * target / t) if t > 0 else 16.0, 2.0), 64.0)
            k = int(min(1 << 22, k * grow))
        batch(k)
        r = self.reps(nbytes)
        us = sorted(batch(k) * 1e6 / k for _ in range(r))
        self.bcast(0)
        self.out.write(
            f"latency,{impl},{op},{nbytes},2,{placement},"
            f"{statistics.median(us):.4f},{us[0]:.4f},{r * k}\n"
        )
        self.out.flush()


def bench_dartpy(opts, sizes, out):
    import dartpy as dart

    dart.init()
    me = dart.myid()
    assert dart.size() == 2, "run with 2 processes"
    placement = "node" if dart.unit_node(0) == dart.unit_node(1) else "remote"
    if opts.placement and opts.placement != placement:
        raise SystemExit(f"--placement {opts.placement} but the runtime reports {placement}")
    kbuf = np.zeros(1, np.int64)

    def bcast(k):
        kbuf[0] = k
        dart.bcast(kbuf, 0)
        return int(kbuf[0])

    h = Harness(me, bcast, opts, out)
    maxb = max(sizes)
    g = dart.team_memalloc_aligned(dart.TEAM_ALL, maxb, np.uint8)
    tgt = g.setunit(1)
    src = np.full(maxb, 2, np.uint8)
    dst = np.full(maxb, 3, np.uint8)
    put, get = dart.put_blocking, dart.get_blocking
    for n in sizes:
        s, d = src[:n], dst[:n]

        def put_body(k, s=s):
            for _ in range(k):
                put(tgt, s)

        def get_body(k, d=d):
            for _ in range(k):
                get(d, tgt)

        h.run("dartpy", "put_blocking", n, placement, put_body)
        h.run("dartpy", "get_blocking", n, placement, get_body)
    dart.barrier()
    dart.team_memfree(g)
    dart.exit()


def bench_mpi4py(opts, sizes, out):
    import mpi4py

    mpi4py.rc.thread_level = "serialized"  # as dartpy; mpi4py's default is "multiple"
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    me = comm.Get_rank()
    assert comm.Get_size() == 2, "run with 2 processes"
    kbuf = np.zeros(1, np.int64)

    def bcast(k):
        kbuf[0] = k
        comm.Bcast(kbuf, 0)
        return int(kbuf[0])

    h = Harness(me, bcast, opts, out)
    maxb = max(sizes)
    src = np.full(maxb, 2, np.uint8)
    dst = np.full(maxb, 3, np.uint8)

    # RMA path: Win.Allocate, one lock_all epoch, Put/Get + Flush
    def rma_rows(impl, w):  # Put/Get + Flush to rank 1 on window w, every size
        for n in sizes:
            s, d = src[:n], dst[:n]

            def put_body(k, s=s):
                for _ in range(k):
                    w.Put(s, 1)
                    w.Flush(1)

            def get_body(k, d=d):
                for _ in range(k):
                    w.Get(d, 1)
                    w.Flush(1)

            h.run(impl, "put", n, "remote", put_body)
            h.run(impl, "get", n, "remote", get_body)

    win = MPI.Win.Allocate(maxb, 1, comm=comm)
    win.Lock_all(MPI.MODE_NOCHECK)
    rma_rows("mpi4py", win)
    win.Unlock_all()
    win.Free()
    # load/store path: NumPy copies through the peer's part of a shared window
    swin = MPI.Win.Allocate_shared(maxb, 1, comm=comm)
    buf, _ = swin.Shared_query(1)
    peer = np.frombuffer(buf, np.uint8, count=maxb)
    # DART's own RMA window kind (Win.Create over the shared segment): the same MPI path
    # as dartpy's `remote` rows, so the difference is per-call overhead only
    mine, _ = swin.Shared_query(me)
    cwin = MPI.Win.Create(mine, 1, comm=comm)
    cwin.Lock_all(MPI.MODE_NOCHECK)
    rma_rows("mpi4py-create-shm", cwin)
    cwin.Unlock_all()
    comm.Barrier()
    cwin.Free()
    del mine
    swin.Lock_all(MPI.MODE_NOCHECK)
    for n in sizes:
        s, d, p = src[:n], dst[:n], peer[:n]

        def put_body(k, s=s, p=p):
            for _ in range(k):
                p[...] = s
                swin.Sync()

        def get_body(k, d=d, p=p):
            for _ in range(k):
                swin.Sync()
                d[...] = p

        h.run("mpi4py", "put", n, "node", put_body)
        h.run("mpi4py", "get", n, "node", get_body)
    swin.Unlock_all()
    del peer, buf
    comm.Barrier()
    swin.Free()


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--impl", choices=["dartpy", "mpi4py"], required=True)
    p.add_argument("--placement", choices=["node", "remote"])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--sizes")
    p.add_argument("--batch-us", type=float, default=500.0)
    p.add_argument("--out", help="CSV file to append to (default stdout)")
    opts = p.parse_args(argv)
    sizes = (
        [parse_size(x) for x in opts.sizes.split(",")]
        if opts.sizes
        else (QUICK_SIZES if opts.quick else ALL_SIZES)
    )
    out = open(opts.out, "a") if opts.out else sys.stdout
    try:
        (bench_dartpy if opts.impl == "dartpy" else bench_mpi4py)(opts, sizes, out)
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
