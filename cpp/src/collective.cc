// SPDX-License-Identifier: BSD-3-Clause
// Collectives on team communicators and two-sided send/recv on a private duplicate of
// MPI_COMM_WORLD. Counts above DART_TRANSFER_CHUNK (at most INT_MAX) elements are
// described by one derived "big contiguous" type, or split for reductions.
#include "internal.h"

#include <algorithm>
#include <climits>

using namespace dart::detail;

namespace {

dart_ret_t coll_type(dart_datatype_t dtype, const char *fn, const Datatype **t) {
  DART_TRY(check_type(dtype, fn, "dtype", t));
  if ((*t)->kind == Datatype::Strided || (*t)->kind == Datatype::Indexed)
    return fail(DART_ERR_INVAL, fn, "collectives take basic or custom types, not strided/indexed");
  return DART_OK;
}

// A (count, type) pair for nelem contiguous elements; *owned means the caller frees *mt.
dart_ret_t contig(const Datatype &t, size_t nelem, int *count, MPI_Datatype *mt, bool *owned,
                  const char *fn) {
  size_t chunk = g->cfg.transfer_chunk;
  *owned = false;
  if (nelem <= chunk) {
    *count = (int)nelem;
    *mt = t.mpi_elem;
    return DART_OK;
  }
  size_t q = nelem / chunk, r = nelem % chunk;
  if (q > INT_MAX) return fail(DART_ERR_INVAL, fn, "%zu elements are too many for one call", nelem);
  MPI_Datatype v;
  DART_MPI(MPI_Type_vector((int)q, (int)chunk, (int)chunk, t.mpi_elem, &v), fn);
  if (r == 0) {
    *mt = v;
  } else {
    MPI_Datatype rest;
    int rc = MPI_Type_contiguous((int)r, t.mpi_elem, &rest);
    if (rc != MPI_SUCCESS) {
      MPI_Type_free(&v);
      return mpi_fail(rc, fn, "MPI_Type_contiguous");
    }
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, (MPI_Aint)(q * chunk * t.elem_size)};
    MPI_Datatype types[2] = {v, rest};
    rc = MPI_Type_create_struct(2, bl, disp, types, mt);
    MPI_Type_free(&v);
    MPI_Type_free(&rest);
    DART_TRY(mpi_check(rc, fn, "MPI_Type_create_struct"));
  }
  if (int rc = MPI_Type_commit(mt); rc != MPI_SUCCESS) {
    MPI_Type_free(mt);
    return mpi_fail(rc, fn, "MPI_Type_commit");
  }
  *count = 1;
  *owned = true;
  return DART_OK;
}

struct Contig {
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool owned = false;
  ~Contig() {
    if (owned) MPI_Type_free(&type);
  }
};

dart_ret_t team_and_root(dart_team_t team, dart_team_unit_t root, const char *fn, Team **t) {
  DART_TRY(check_init(fn));
  DART_TRY(get_team(team, fn, t));
  if (root.id < 0 || root.id >= (*t)->size)
    return fail(DART_ERR_INVAL, fn, "root %d out of range [0, %d) of team %d", root.id, (*t)->size,
                (int)team);
  return DART_OK;
}

dart_ret_t need_buf(const void *p, size_t nelem, const char *fn, const char *what) {
  if (p == nullptr && nelem > 0) return fail(DART_ERR_INVAL, fn, "%s is NULL", what);
  return DART_OK;
}

// Maps a DART operation on dtype to an MPI op and element type. *pairs: MINMAX works on
// (min, max) pairs, so the element count is halved.
dart_ret_t reduce_op(dart_operation_t op, dart_datatype_t dtype, const Datatype &t, size_t nelem,
                     MPI_Op *mop, MPI_Datatype *mtype, size_t *count, const char *fn) {
  *count = nelem;
  *mtype = t.mpi_elem;
  if (op > DART_OP_UNDEFINED && op < DART_OP_LAST) {
    if (t.kind != Datatype::Basic)
      return fail(DART_ERR_INVAL, fn, "predefined operations need a basic dtype");
    if (!(op_flags(op) & DART_OPF_REDUCE))
      return fail(DART_ERR_INVAL, fn, "operation %ld is not a reduction", (long)op);
    if (op == DART_OP_MINMAX) {
      if (nelem % 2 != 0)
        return fail(DART_ERR_INVAL, fn, "DART_OP_MINMAX needs (min, max) pairs: nelem %zu is odd",
                    nelem);
      *mop = minmax_op(dtype, mtype);
      *count = nelem / 2;
      return DART_OK;
    }
    *mop = op_mpi(op);
    *mtype = basic_mpi_arith_type(t.base);
    return DART_OK;
  }
  dart_datatype_t op_type;
  if (user_op_lookup(op, mop, mtype, &op_type) != DART_OK)
    return fail(DART_ERR_INVAL, fn,
                "op is neither a DART_OP_* constant nor a live dart_op_create operation");
  if (op_type != dtype)
    return fail(DART_ERR_INVAL, fn, "dtype differs from the type the operation was created for");
  return DART_OK;
}

dart_ret_t do_reduce(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                     dart_operation_t op, int root, dart_team_t team, const char *fn) {
  Team *t = nullptr;
  if (root >= 0) {
    DART_TRY(team_and_root(team, DART_TEAM_UNIT_ID(root), fn, &t));
  } else {
    DART_TRY(check_init(fn));
    DART_TRY(get_team(team, fn, &t));
  }
  // The local checks; a rooted reduction agrees on them (only the root checks recvbuf),
  // so a bad argument on one unit fails on every unit (as dart_scatter).
  Agreement a;
  const Datatype *ty = nullptr;
  a.step(coll_type(dtype, fn, &ty));
  if (a.ok()) a.step(need_buf(sendbuf, nelem, fn, "sendbuf"));
  if (a.ok() && (root < 0 || root == t->myid)) a.step(need_buf(recvbuf, nelem, fn, "recvbuf"));
  MPI_Op mop = MPI_OP_NULL;
  MPI_Datatype mtype = MPI_DATATYPE_NULL;
  size_t count = 0;
  if (a.ok()) a.step(reduce_op(op, dtype, *ty, nelem, &mop, &mtype, &count, fn));
  DART_TRY(root >= 0 ? a.agree(t->comm, t, fn) : a.rc());
  size_t per = nelem / (count ? count : 1);  // elements per MPI element (2 for MINMAX)
  size_t step_bytes = per * ty->elem_size;
  const char *s = static_cast<const char *>(sendbuf);
  char *r = static_cast<char *>(recvbuf);
  bool in_place = sendbuf == recvbuf && nelem > 0;
  size_t chunk = g->cfg.transfer_chunk;
  size_t done = 0;
  do {  // at least one call, so every member takes part even for nelem == 0
    size_t n = std::min(chunk, count - done);
    const void *sb = in_place
                         ? (root < 0 || root == t->myid ? MPI_IN_PLACE
                                                        : (const void *)(r + done * step_bytes))
                         : (const void *)(s + done * step_bytes);
    void *rb = r ? r + done * step_bytes : nullptr;
    if (root < 0) {
      DART_MPI(MPI_Allreduce(sb, rb, (int)n, mtype, mop, t->comm), fn);
    } else {
      DART_MPI(MPI_Reduce(sb, rb, (int)n, mtype, mop, root, t->comm), fn);
    }
    done += n;
  } while (done < count);
  return DART_OK;
}

dart_ret_t check_peer(dart_global_unit_t u, int tag, const char *fn) {
  DART_TRY(check_init(fn));
  if (u.id < 0 || u.id >= g->size)
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d)", u.id, g->size);
  if (tag < 0) return fail(DART_ERR_INVAL, fn, "tag %d is negative", tag);
  return DART_OK;
}

}  // namespace

extern "C" {

dart_ret_t dart_barrier(dart_team_t team) {
  const char *fn = "dart_barrier";
  DART_TRY(check_init(fn));
  DART_TRY(progress_drain(fn));
  Team *t = nullptr;
  DART_TRY(get_team(team, fn, &t));
  std::atomic_thread_fence(std::memory_order_seq_cst);  // order direct stores before it
  sync_separate_segments();  // separate model: local stores become public
  if (DART_LIKELY(!g->oversubscribed)) {
    DART_MPI(MPI_Barrier(t->comm), fn);
  } else {
    // More processes than cores: MPI_Barrier busy-polls, and a unit that arrived early
    // keeps a core from the units it waits for (MPICH: ~8 ms per barrier of 4 units on 2
    // cores). Poll a nonblocking barrier with the same backoff as DART's other waits.
    MPI_Request req;
    DART_MPI(MPI_Ibarrier(t->comm, &req), fn);
    DART_TRY(wait_backoff(&req, fn));
  }
  sync_separate_segments();  // separate model: others' RMA before the barrier is loadable
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return DART_OK;
}

dart_ret_t dart_bcast(void *buf, size_t nelem, dart_datatype_t dtype, dart_team_unit_t root,
                      dart_team_t team) {
  const char *fn = "dart_bcast";
  Team *t = nullptr;
  DART_TRY(team_and_root(team, root, fn, &t));
  const Datatype *ty;
  DART_TRY(coll_type(dtype, fn, &ty));
  DART_TRY(need_buf(buf, nelem, fn, "buf"));
  Contig c;
  DART_TRY(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  DART_MPI(MPI_Bcast(buf, c.count, c.type, root.id, t->comm), fn);
  return DART_OK;
}

dart_ret_t dart_scatter(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                        dart_team_unit_t root, dart_team_t team) {
  const char *fn = "dart_scatter";
  Team *t = nullptr;
  DART_TRY(team_and_root(team, root, fn, &t));
  // Only the root checks sendbuf: the units agree on the local checks (Agreement), so a
  // bad argument on one unit fails on every unit instead of leaving the others waiting.
  Agreement a;
  const Datatype *ty = nullptr;
  a.step(coll_type(dtype, fn, &ty));
  if (a.ok() && t->myid == root.id) a.step(need_buf(sendbuf, nelem, fn, "sendbuf"));
  if (a.ok()) a.step(need_buf(recvbuf, nelem, fn, "recvbuf"));
  Contig c;
  if (a.ok()) a.step(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  DART_TRY(a.agree(t->comm, t, fn));
  DART_MPI(MPI_Scatter(sendbuf, c.count, c.type, recvbuf, c.count, c.type, root.id, t->comm), fn);
  return DART_OK;
}

dart_ret_t dart_gather(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                       dart_team_unit_t root, dart_team_t team) {
  const char *fn = "dart_gather";
  Team *t = nullptr;
  DART_TRY(team_and_root(team, root, fn, &t));
  // Only the root checks recvbuf: the units agree on the local checks (as dart_scatter).
  Agreement a;
  const Datatype *ty = nullptr;
  a.step(coll_type(dtype, fn, &ty));
  if (a.ok()) a.step(need_buf(sendbuf, nelem, fn, "sendbuf"));
  if (a.ok() && t->myid == root.id) a.step(need_buf(recvbuf, nelem, fn, "recvbuf"));
  Contig c;
  if (a.ok()) a.step(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  DART_TRY(a.agree(t->comm, t, fn));
  DART_MPI(MPI_Gather(sendbuf, c.count, c.type, recvbuf, c.count, c.type, root.id, t->comm), fn);
  return DART_OK;
}

dart_ret_t dart_allgather(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                          dart_team_t team) {
  const char *fn = "dart_allgather";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(team, fn, &t));
  const Datatype *ty;
  DART_TRY(coll_type(dtype, fn, &ty));
  DART_TRY(need_buf(sendbuf, nelem, fn, "sendbuf"));
  DART_TRY(need_buf(recvbuf, nelem, fn, "recvbuf"));
  Contig c;
  DART_TRY(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  const void *sb = sendbuf;
  if (nelem > 0 &&
      sendbuf == static_cast<char *>(recvbuf) + (size_t)t->myid * nelem * ty->elem_size)
    sb = MPI_IN_PLACE;
  DART_MPI(MPI_Allgather(sb, c.count, c.type, recvbuf, c.count, c.type, t->comm), fn);
  return DART_OK;
}

dart_ret_t dart_allgatherv(const void *sendbuf, size_t nsendelem, dart_datatype_t dtype,
                           void *recvbuf, const size_t *nrecvelem, const size_t *recvdispls,
                           dart_team_t teamid) {
  const char *fn = "dart_allgatherv";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  // Local checks; their result takes part in the reduction below, so that bad arguments
  // on one unit fail on every unit instead of leaving the others in the collective.
  const Datatype *ty = nullptr;
  dart_ret_t local = coll_type(dtype, fn, &ty);
  bool small = true;
  if (local == DART_OK && (nrecvelem == nullptr || recvdispls == nullptr))
    local = fail(DART_ERR_INVAL, fn, "nrecvelem and recvdispls must not be NULL");
  if (local == DART_OK) local = need_buf(sendbuf, nsendelem, fn, "sendbuf");
  if (local == DART_OK) {
    size_t total = 0;
    for (int u = 0; u < t->size; ++u) {
      total += nrecvelem[u];
      if (nrecvelem[u] > g->cfg.transfer_chunk || recvdispls[u] > INT_MAX) small = false;
    }
    local = need_buf(recvbuf, total, fn, "recvbuf");
  }
  if (local == DART_OK && nrecvelem[t->myid] != nsendelem)
    local = fail(DART_ERR_INVAL, fn, "nrecvelem[%d] = %zu differs from nsendelem = %zu", t->myid,
                 nrecvelem[t->myid], nsendelem);
  // Every member must take the same path (and fail together): agree on it.
  int mine = local != DART_OK ? -1 : small ? 1 : 0, all = 0;
  DART_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, t->comm), fn);
  if (local != DART_OK) return local;
  if (all < 0)
    return fail(DART_ERR_INVAL, fn, "another unit of team %d passed invalid arguments",
                (int)teamid);
  if (all) {
    std::vector<int> counts(t->size), displs(t->size);
    for (int u = 0; u < t->size; ++u) {
      counts[u] = (int)nrecvelem[u];
      displs[u] = (int)recvdispls[u];
    }
    DART_MPI(MPI_Allgatherv(sendbuf, (int)nsendelem, ty->mpi_elem, recvbuf, counts.data(),
                            displs.data(), ty->mpi_elem, t->comm),
             fn);
    return DART_OK;
  }
  // Large blocks: every member broadcasts its block in turn.
  char *rb = static_cast<char *>(recvbuf);
  std::copy(static_cast<const char *>(sendbuf),
            static_cast<const char *>(sendbuf) + nsendelem * ty->elem_size,
            rb + recvdispls[t->myid] * ty->elem_size);
  for (int u = 0; u < t->size; ++u) {
    Contig c;
    DART_TRY(contig(*ty, nrecvelem[u], &c.count, &c.type, &c.owned, fn));
    DART_MPI(MPI_Bcast(rb + recvdispls[u] * ty->elem_size, c.count, c.type, u, t->comm), fn);
  }
  return DART_OK;
}

dart_ret_t dart_allreduce(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                          dart_operation_t op, dart_team_t team) {
  return do_reduce(sendbuf, recvbuf, nelem, dtype, op, -1, team, "dart_allreduce");
}

dart_ret_t dart_reduce(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                       dart_operation_t op, dart_team_unit_t root, dart_team_t team) {
  if (root.id < 0) {
    DART_TRY(check_init("dart_reduce"));
    return fail(DART_ERR_INVAL, "dart_reduce", "root %d is negative", root.id);
  }
  return do_reduce(sendbuf, recvbuf, nelem, dtype, op, root.id, team, "dart_reduce");
}

dart_ret_t dart_alltoall(const void *sendbuf, void *recvbuf, size_t nelem, dart_datatype_t dtype,
                         dart_team_t team) {
  const char *fn = "dart_alltoall";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(team, fn, &t));
  const Datatype *ty;
  DART_TRY(coll_type(dtype, fn, &ty));
  DART_TRY(need_buf(sendbuf, nelem, fn, "sendbuf"));
  DART_TRY(need_buf(recvbuf, nelem, fn, "recvbuf"));
  Contig c;
  DART_TRY(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  DART_MPI(MPI_Alltoall(sendbuf, c.count, c.type, recvbuf, c.count, c.type, t->comm), fn);
  return DART_OK;
}

dart_ret_t dart_send(const void *sendbuf, size_t nelem, dart_datatype_t dtype, int tag,
                     dart_global_unit_t unit) {
  const char *fn = "dart_send";
  DART_TRY(check_peer(unit, tag, fn));
  const Datatype *ty;
  DART_TRY(coll_type(dtype, fn, &ty));
  DART_TRY(need_buf(sendbuf, nelem, fn, "sendbuf"));
  Contig c;
  DART_TRY(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  DART_MPI(MPI_Send(sendbuf, c.count, c.type, unit.id, tag, g->p2p), fn);
  return DART_OK;
}

dart_ret_t dart_recv(void *recvbuf, size_t nelem, dart_datatype_t dtype, int tag,
                     dart_global_unit_t unit) {
  const char *fn = "dart_recv";
  DART_TRY(check_peer(unit, tag, fn));
  const Datatype *ty;
  DART_TRY(coll_type(dtype, fn, &ty));
  DART_TRY(need_buf(recvbuf, nelem, fn, "recvbuf"));
  Contig c;
  DART_TRY(contig(*ty, nelem, &c.count, &c.type, &c.owned, fn));
  DART_MPI(MPI_Recv(recvbuf, c.count, c.type, unit.id, tag, g->p2p, MPI_STATUS_IGNORE), fn);
  return DART_OK;
}

dart_ret_t dart_sendrecv(const void *sendbuf, size_t send_nelem, dart_datatype_t send_dtype,
                         int send_tag, dart_global_unit_t dest, void *recvbuf, size_t recv_nelem,
                         dart_datatype_t recv_dtype, int recv_tag, dart_global_unit_t src) {
  const char *fn = "dart_sendrecv";
  DART_TRY(check_peer(dest, send_tag, fn));
  DART_TRY(check_peer(src, recv_tag, fn));
  const Datatype *st, *rt;
  DART_TRY(coll_type(send_dtype, fn, &st));
  DART_TRY(coll_type(recv_dtype, fn, &rt));
  DART_TRY(need_buf(sendbuf, send_nelem, fn, "sendbuf"));
  DART_TRY(need_buf(recvbuf, recv_nelem, fn, "recvbuf"));
  Contig cs, cr;
  DART_TRY(contig(*st, send_nelem, &cs.count, &cs.type, &cs.owned, fn));
  DART_TRY(contig(*rt, recv_nelem, &cr.count, &cr.type, &cr.owned, fn));
  DART_MPI(MPI_Sendrecv(sendbuf, cs.count, cs.type, dest.id, send_tag, recvbuf, cr.count, cr.type,
                        src.id, recv_tag, g->p2p, MPI_STATUS_IGNORE),
           fn);
  return DART_OK;
}

}  // extern "C"
