// SPDX-License-Identifier: BSD-3-Clause
// Datatypes: the basic types, derived (strided, indexed, custom) types, the layout walker
// of the direct path, MPI layouts for the RMA path, and user-defined reduction operators.
#include "internal.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

namespace dart {
namespace detail {

Datatype g_basic[(size_t)DART_TYPE_LAST];
SeqSlot<ValidType> g_valid_types[1u << kValidTypeBits];

namespace {

std::mutex g_types_mutex;
std::unordered_set<const Datatype *> g_derived;  // live derived types
// With g_types_mutex held: d leaves the live set.
bool forget_derived(const Datatype *d) {
  if (!g_derived.erase(d)) return false;
  g_hot.types_epoch.fetch_add(1, std::memory_order_release);
  return true;
}

struct OpInfo {
  dart_operator_t fn;
  void *userdata;
  dart_datatype_t dtype;
  bool dtype_is_tmp;
  MPI_Op mpi_op;
  MPI_Datatype mpi_type;  // dup of the element type carrying this OpInfo as attribute
};
std::unordered_set<const OpInfo *> g_ops;
int g_op_keyval = MPI_KEYVAL_INVALID;

MPI_Op g_minmax_ops[(size_t)DART_TYPE_LAST];
MPI_Datatype g_pair_types[(size_t)DART_TYPE_LAST];
bool g_minmax_set = false;  // the two tables hold MPI handles (types_init has started)

template <typename T>
void minmax_fn(void *in, void *inout, int *len, MPI_Datatype *) {
  const T *a = static_cast<const T *>(in);
  T *b = static_cast<T *>(inout);
  for (int i = 0; i < *len; ++i) {
    if (a[2 * i] < b[2 * i]) b[2 * i] = a[2 * i];
    if (a[2 * i + 1] > b[2 * i + 1]) b[2 * i + 1] = a[2 * i + 1];
  }
}

void user_op_trampoline(void *in, void *inout, int *len, MPI_Datatype *dt) {
  void *attr = nullptr;
  int flag = 0;
  MPI_Type_get_attr(*dt, g_op_keyval, &attr, &flag);
  if (!flag) {  // MPI applied the operation to another type: results would be wrong
    std::fprintf(stderr,
                 "DART: a user reduction operation was applied to a datatype other "
                 "than the one of its dart_op_create; aborting\n");
    dart_abort(1);
  }
  const OpInfo *op = static_cast<const OpInfo *>(attr);
  op->fn(in, inout, (size_t)*len, op->userdata);
}

void set_basic(dart_datatype_t t, size_t size, MPI_Datatype mt) {
  Datatype &d = g_basic[t];
  d.kind = Datatype::Basic;
  d.base = t;
  d.elem_size = size;
  d.mpi_elem = mt;
}

// The MINMAX operation and pair type of one basic type.
template <typename T>
dart_ret_t make_minmax(dart_datatype_t t, MPI_Datatype mt, const char *fn) {
  DART_MPI(MPI_Op_create(&minmax_fn<T>, 1, &g_minmax_ops[t]), fn);
  DART_MPI(MPI_Type_contiguous(2, mt, &g_pair_types[t]), fn);
  DART_MPI(MPI_Type_commit(&g_pair_types[t]), fn);
  return DART_OK;
}

void free_derived(Datatype *d) {
  for (auto &kv : d->vector_cache) MPI_Type_free(&kv.second.type);
  if (d->mpi_pattern != MPI_DATATYPE_NULL) MPI_Type_free(&d->mpi_pattern);
  if (d->mpi_pattern_once != MPI_DATATYPE_NULL) MPI_Type_free(&d->mpi_pattern_once);
  if (d->owns_elem && d->mpi_elem != MPI_DATATYPE_NULL) MPI_Type_free(&d->mpi_elem);
  delete d;
}

// A strided or indexed type over `b` keeps using b's element type (vector types are built
// per transfer), so over a custom type it takes its own duplicate: destroying the custom
// type first must not free the element type under it.
static dart_ret_t adopt_element(const Datatype &b, Datatype *d, const char *fn) {
  d->base = b.base;
  d->elem_size = b.elem_size;
  d->mpi_elem = b.mpi_elem;
  if (b.kind != Datatype::Custom) return DART_OK;  // predefined MPI types live forever
  DART_MPI(MPI_Type_dup(b.mpi_elem, &d->mpi_elem), fn);
  d->owns_elem = true;
  return DART_OK;
}

// Byte offset of element k (a multiple of the granularity) in the layout.
size_t elem_offset(const Datatype &t, size_t k) {
  switch (t.kind) {
    case Datatype::Strided: return (k / t.blocklen) * t.stride * t.elem_size;
    case Datatype::Indexed: return (k / t.pattern_elems) * t.pattern_extent * t.elem_size;
    default: return k * t.elem_size;
  }
}

// Walks the blocks (element offset, element count) of nelem elements of a layout.
struct BlockWalker {
  const Datatype &t;
  size_t left;      // elements still to walk
  size_t base = 0;  // element offset of the current repetition (strided: block)
  size_t j = 0;     // block within the indexed pattern
  BlockWalker(const Datatype &t_, size_t n) : t(t_), left(n) {}
  // The next block: its element offset and length. Incremental, without a division per
  // block (a face of 32 runs walked on both sides cost twice the copy itself).
  bool next(size_t *off, size_t *len) {
    if (left == 0) return false;
    size_t l;
    switch (t.kind) {
      case Datatype::Strided:
        *off = base;
        l = t.blocklen;
        base += t.stride;
        break;
      case Datatype::Indexed: {
        const Block b = t.block(j);
        *off = base + b.off;
        l = b.len;
        if (++j == t.nblocks) {
          j = 0;
          base += t.pattern_extent;
        }
        break;
      }
      default:
        *off = 0;
        l = left;
        break;
    }
    if (l > left) l = left;
    left -= l;
    *len = l;
    return true;
  }
};

dart_ret_t register_derived(std::unique_ptr<Datatype> d, dart_datatype_t *out) {
  std::lock_guard<std::mutex> lock(g_types_mutex);
  g_derived.insert(d.get());
  *out = (dart_datatype_t)(intptr_t)d.release();
  return DART_OK;
}

// The element type of a strided/indexed type: a basic or a custom type.
dart_ret_t element_type(dart_datatype_t t, const char *fn, const Datatype **out) {
  const Datatype *d = lookup_type(t);
  if (d == nullptr || d->kind == Datatype::Strided || d->kind == Datatype::Indexed)
    return fail(DART_ERR_INVAL, fn, "basetype must be a basic or custom DART type");
  *out = d;
  return DART_OK;
}

}  // namespace

dart_ret_t types_init(const char *fn) {
  // Every handle starts null, so that types_finalize after a partial init frees only what
  // was made.
  for (size_t t = 0; t < (size_t)DART_TYPE_LAST; ++t) {
    g_minmax_ops[t] = MPI_OP_NULL;
    g_pair_types[t] = MPI_DATATYPE_NULL;
  }
  g_minmax_set = true;
#define DART_X_BASIC_(name, ctype, mpi_xfer, mpi_arith, ...) \
  set_basic(DART_TYPE_##name, sizeof(ctype), mpi_xfer);      \
  DART_TRY(make_minmax<ctype>(DART_TYPE_##name, mpi_arith, fn));
  DART_BASIC_TYPE_LIST(DART_X_BASIC_)
#undef DART_X_BASIC_
  DART_MPI(
      MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &g_op_keyval, nullptr),
      fn);
  return DART_OK;
}

void types_finalize() {
  std::lock_guard<std::mutex> lock(g_types_mutex);
  for (const OpInfo *op : g_ops) {
    OpInfo *o = const_cast<OpInfo *>(op);
    MPI_Op_free(&o->mpi_op);
    MPI_Type_free(&o->mpi_type);
    delete o;
  }
  g_ops.clear();
  g_hot.types_epoch.fetch_add(1, std::memory_order_release);  // before the types go
  for (const Datatype *d : g_derived) free_derived(const_cast<Datatype *>(d));
  g_derived.clear();
  for (size_t t = 1; g_minmax_set && t < (size_t)DART_TYPE_LAST; ++t) {
    if (g_minmax_ops[t] != MPI_OP_NULL) MPI_Op_free(&g_minmax_ops[t]);
    if (g_pair_types[t] != MPI_DATATYPE_NULL) MPI_Type_free(&g_pair_types[t]);
  }
  g_minmax_set = false;
  if (g_op_keyval != MPI_KEYVAL_INVALID) MPI_Type_free_keyval(&g_op_keyval);
}

void type_mark_layout(dart_datatype_t t) {
  std::lock_guard<std::mutex> lock(g_types_mutex);
  Datatype *d = reinterpret_cast<Datatype *>(t);
  if (g_derived.count(d)) d->layout_owned = true;
}

void type_destroy_layout(dart_datatype_t t) {
  Datatype *d = reinterpret_cast<Datatype *>(t);
  {
    std::lock_guard<std::mutex> lock(g_types_mutex);
    if (!forget_derived(d)) return;  // dart_exit freed it already
  }
  free_derived(d);
}

const Datatype *lookup_type(dart_datatype_t t) {
  if (t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST) return &g_basic[t];
  const Datatype *d = reinterpret_cast<const Datatype *>(t);
  if (d == nullptr) return nullptr;
  // Read before the lookup: a removal after this read leaves an entry that never counts.
  const uint64_t epoch = g_hot.types_epoch.load(std::memory_order_acquire);
  if (type_known_valid(d, epoch)) return d;
  {
    std::lock_guard<std::mutex> lock(g_types_mutex);
    if (!g_derived.count(d)) return nullptr;
  }
  valid_type_slot(d).write(ValidType{d, epoch});
  return d;
}

dart_ret_t check_type_slow(dart_datatype_t t, const char *fn, const char *what,
                           const Datatype **out) {
  const Datatype *d = lookup_type(t);
  if (DART_UNLIKELY(d == nullptr))
    return fail(DART_ERR_INVAL, fn, "%s is not a valid DART datatype (undefined or destroyed)",
                what);
  *out = d;
  return DART_OK;
}

dart_ret_t type_count_error(const Datatype &t, size_t nelem, const char *fn) {
  return fail(DART_ERR_INVAL, fn, "nelem %zu is not a multiple of the type's %s (%zu elements)",
              nelem, t.kind == Datatype::Strided ? "block length" : "pattern size", granularity(t));
}

namespace {
// Calls f(dst element offset, src element offset, elements) for each piece that is
// contiguous in both layouts, in element order.
template <class F>
void for_each_pair(const Datatype &dt, const Datatype &st, size_t nelem, F &&f) {
  // Two indexed types with the same block lengths (a face described on both sides, the
  // halo exchange's case): block j pairs with block j, no walk (nelem is a multiple of
  // the common pattern, checked by the caller). The comparison reads the lines the copy
  // reads next.
  if (dt.kind == Datatype::Indexed && st.kind == Datatype::Indexed && dt.nblocks == st.nblocks) {
    const size_t nb = st.nblocks;
    const Block *db = dt.blocks.get(), *sb = st.blocks.get();
    Block d1, s1;  // one run per pattern (a 2D face): the types' first lines hold it
    if (nb == 1) {
      d1 = dt.block(0), s1 = st.block(0);
      db = &d1, sb = &s1;
    }
    size_t j = 0;
    while (j < nb && db[j].len == sb[j].len) ++j;
    if (j == nb) {
      for (size_t done = 0, dbase = 0, sbase = 0; done < nelem;
           done += st.pattern_elems, dbase += dt.pattern_extent, sbase += st.pattern_extent)
        for (j = 0; j < nb; ++j) f(dbase + db[j].off, sbase + sb[j].off, sb[j].len);
      return;
    }
  }
  BlockWalker sw(st, nelem), dw(dt, nelem);
  size_t soff = 0, slen = 0, doff = 0, dlen = 0;
  while (true) {
    if (slen == 0 && !sw.next(&soff, &slen)) break;
    if (dlen == 0 && !dw.next(&doff, &dlen)) break;
    size_t n = std::min(slen, dlen);
    f(doff, soff, n);
    soff += n, slen -= n, doff += n, dlen -= n;
  }
}
}  // namespace

void layout_copy(char *dst, const Datatype &dt, const char *src, const Datatype &st, size_t nelem,
                 size_t src_first) {
  const size_t es = st.elem_size;
  if (st.kind != Datatype::Strided && st.kind != Datatype::Indexed &&
      dt.kind != Datatype::Strided && dt.kind != Datatype::Indexed) {
    std::memcpy(dst, src, nelem * es);
    return;
  }
  for_each_pair(dt, st, nelem, [&](size_t doff, size_t soff, size_t n) {
    copy_bytes(dst + doff * es, src + (soff - src_first) * es, n * es);
  });
}

void layout_runs(const Datatype &dt, const Datatype &st, size_t nelem, size_t src_first,
                 std::vector<CopyRun> *runs) {
  const size_t es = st.elem_size;
  runs->clear();
  for_each_pair(dt, st, nelem, [&](size_t doff, size_t soff, size_t n) {
    if (!runs->empty() && runs->back().dst + runs->back().len == doff * es &&
        runs->back().src + runs->back().len == (soff - src_first) * es) {
      runs->back().len += n * es;  // contiguous on both sides: one copy
    } else {
      runs->push_back(CopyRun{doff * es, (soff - src_first) * es, n * es});
    }
  });
}

dart_ret_t mpi_layout(const Datatype &t, size_t nelem, int *count, MPI_Datatype *mt,
                      const char *fn) {
  switch (t.kind) {
    case Datatype::Strided: {
      size_t nblocks = nelem / t.blocklen;
      if (nblocks > INT_MAX)
        return fail(DART_ERR_INVAL, fn, "%zu blocks exceed one MPI call", nblocks);
      Datatype &m = const_cast<Datatype &>(t);
      std::lock_guard<std::mutex> lock(m.cache_mutex);
      auto it = m.vector_cache.find(nblocks);
      if (it == m.vector_cache.end()) {
        MPI_Datatype v;
        DART_MPI(MPI_Type_vector((int)nblocks, (int)t.blocklen, (int)t.stride, t.mpi_elem, &v), fn);
        if (int rc = MPI_Type_commit(&v); rc != MPI_SUCCESS) {
          MPI_Type_free(&v);
          return mpi_fail(rc, fn, "MPI_Type_commit");
        }
        if (m.vector_cache.size() >= 64) {  // bound the cache: evict what nobody uses
          for (auto e = m.vector_cache.begin(); e != m.vector_cache.end();) {
            if (e->second.users == 0) {
              MPI_Type_free(&e->second.type);
              e = m.vector_cache.erase(e);
            } else {
              ++e;
            }
          }
        }
        it = m.vector_cache.emplace(nblocks, Datatype::CachedVector{v, 0}).first;
      }
      ++it->second.users;  // until mpi_layout_done: another thread's eviction keeps it
      *count = 1;
      *mt = it->second.type;
      return DART_OK;
    }
    case Datatype::Indexed: {
      size_t reps = nelem / t.pattern_elems;
      if (reps > INT_MAX) return fail(DART_ERR_INVAL, fn, "%zu patterns exceed one MPI call", reps);
      *count = (int)reps;
      *mt = reps == 1 ? t.mpi_pattern_once : t.mpi_pattern;
      return DART_OK;
    }
    default:
      if (nelem > INT_MAX)
        return fail(DART_ERR_INVAL, fn, "%zu elements exceed one MPI call", nelem);
      *count = (int)nelem;
      *mt = t.mpi_elem;
      return DART_OK;
  }
}

void mpi_layout_done(const Datatype &t, size_t nelem) {
  if (t.kind != Datatype::Strided) return;
  Datatype &m = const_cast<Datatype &>(t);
  std::lock_guard<std::mutex> lock(m.cache_mutex);
  auto it = m.vector_cache.find(nelem / t.blocklen);
  if (it != m.vector_cache.end()) --it->second.users;
}

// Chunk plan shared by the RMA path: calls f(src_byte_off, dst_byte_off, n) for pieces
// of at most cfg.transfer_chunk elements (rounded to both layouts' granularity).
dart_ret_t for_each_chunk(const Datatype &a, const Datatype &b, size_t nelem,
                          dart_ret_t (*f)(void *, size_t, size_t, size_t), void *ctx) {
  size_t ga = granularity(a), gb = granularity(b);
  size_t l = ga / std::__gcd(ga, gb) * gb;
  size_t chunk = g->cfg.transfer_chunk / l * l;
  if (chunk == 0) chunk = l;
  for (size_t start = 0; start < nelem; start += chunk) {
    size_t n = std::min(chunk, nelem - start);
    DART_TRY(f(ctx, elem_offset(a, start), elem_offset(b, start), n));
  }
  return DART_OK;
}

dart_ret_t user_op_lookup(dart_operation_t op, MPI_Op *mop, MPI_Datatype *mtype,
                          dart_datatype_t *dtype) {
  std::lock_guard<std::mutex> lock(g_types_mutex);
  const OpInfo *o = reinterpret_cast<const OpInfo *>(op);
  if (!g_ops.count(o)) return DART_ERR_NOTFOUND;
  *mop = o->mpi_op;
  *mtype = o->mpi_type;
  *dtype = o->dtype;
  return DART_OK;
}

MPI_Op minmax_op(dart_datatype_t t, MPI_Datatype *pair) {
  *pair = g_pair_types[t];
  return g_minmax_ops[t];
}

}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_type_create_strided(dart_datatype_t basetype, size_t stride, size_t blocklen,
                                    dart_datatype_t *newtype) {
  const char *fn = "dart_type_create_strided";
  null_out(newtype, DART_TYPE_UNDEFINED);
  DART_TRY(check_init(fn));
  if (newtype == nullptr) return fail(DART_ERR_INVAL, fn, "newtype is NULL");
  const Datatype *bt = nullptr;
  DART_TRY(element_type(basetype, fn, &bt));
  if (blocklen == 0 || blocklen > INT_MAX)
    return fail(DART_ERR_INVAL, fn, "blocklen %zu must be in [1, INT_MAX]", blocklen);
  if (stride < blocklen || stride > INT_MAX)
    return fail(DART_ERR_INVAL, fn, "stride %zu must be in [blocklen=%zu, INT_MAX]", stride,
                blocklen);
  std::unique_ptr<Datatype> d(new Datatype());
  d->kind = Datatype::Strided;
  DART_TRY(adopt_element(*bt, d.get(), fn));
  d->stride = stride;
  d->blocklen = blocklen;
  return register_derived(std::move(d), newtype);
}

dart_ret_t dart_type_create_indexed(dart_datatype_t basetype, size_t count, const size_t blocklen[],
                                    const size_t offset[], dart_datatype_t *newtype) {
  const char *fn = "dart_type_create_indexed";
  null_out(newtype, DART_TYPE_UNDEFINED);
  DART_TRY(check_init(fn));
  if (newtype == nullptr) return fail(DART_ERR_INVAL, fn, "newtype is NULL");
  const Datatype *bt = nullptr;
  DART_TRY(element_type(basetype, fn, &bt));
  if (count == 0 || count > INT_MAX)
    return fail(DART_ERR_INVAL, fn, "count %zu must be in [1, INT_MAX]", count);
  if (blocklen == nullptr || offset == nullptr)
    return fail(DART_ERR_INVAL, fn, "blocklen and offset must not be NULL");
  std::unique_ptr<Datatype> d(new Datatype());
  const Datatype &b = *bt;
  d->kind = Datatype::Indexed;
  d->nblocks = (uint32_t)count;
  d->blocks.reset(new Block[count]);
  std::vector<int> bl(count), disp(count);
  for (size_t i = 0; i < count; ++i) {
    if (blocklen[i] == 0 || blocklen[i] > INT_MAX || offset[i] > INT_MAX)
      return fail(DART_ERR_INVAL, fn, "block %zu: length %zu / offset %zu out of range", i,
                  blocklen[i], offset[i]);
    d->blocks[i] = Block{offset[i], blocklen[i]};
    d->pattern_elems += blocklen[i];
    d->pattern_extent = std::max(d->pattern_extent, offset[i] + blocklen[i]);
    d->pattern_first = i == 0 ? offset[i] : std::min(d->pattern_first, offset[i]);
    bl[i] = (int)blocklen[i];
    disp[i] = (int)offset[i];
  }
  // Blocks may come in any order and overlap, as in MPI_Type_indexed: elements are taken
  // in the order of the blocks. Overlapping blocks are fine where the type is read (the
  // source of a put, the remote side of a get); transfers refuse it as a destination.
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t c) { return offset[a] < offset[c]; });
  for (size_t i = 1; i < count; ++i)
    if (offset[order[i]] < offset[order[i - 1]] + blocklen[order[i - 1]]) d->overlapping = true;
  MPI_Datatype idx;
  DART_MPI(MPI_Type_indexed((int)count, bl.data(), disp.data(), b.mpi_elem, &idx), fn);
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  dart_ret_t rc = mpi_check(
      MPI_Type_create_resized(idx, 0, (MPI_Aint)(d->pattern_extent * b.elem_size), &resized), fn,
      "MPI_Type_create_resized");
  if (rc == DART_OK) rc = mpi_check(MPI_Type_commit(&resized), fn, "MPI_Type_commit");
  if (rc == DART_OK) rc = mpi_check(MPI_Type_commit(&idx), fn, "MPI_Type_commit");
  if (rc == DART_OK) rc = adopt_element(b, d.get(), fn);
  if (rc != DART_OK) {
    MPI_Type_free(&idx);
    if (resized != MPI_DATATYPE_NULL) MPI_Type_free(&resized);
    return rc;
  }
  d->mpi_pattern = resized;
  d->mpi_pattern_once = idx;
  return register_derived(std::move(d), newtype);
}

dart_ret_t dart_type_create_custom(size_t num_bytes, dart_datatype_t *newtype) {
  const char *fn = "dart_type_create_custom";
  null_out(newtype, DART_TYPE_UNDEFINED);
  DART_TRY(check_init(fn));
  if (newtype == nullptr) return fail(DART_ERR_INVAL, fn, "newtype is NULL");
  if (num_bytes == 0 || num_bytes > INT_MAX)
    return fail(DART_ERR_INVAL, fn, "num_bytes %zu must be in [1, INT_MAX]", num_bytes);
  std::unique_ptr<Datatype> d(new Datatype());
  d->kind = Datatype::Custom;
  d->base = DART_TYPE_BYTE;
  d->elem_size = num_bytes;
  MPI_Datatype c;
  DART_MPI(MPI_Type_contiguous((int)num_bytes, MPI_BYTE, &c), fn);
  if (int rc = MPI_Type_commit(&c); rc != MPI_SUCCESS) {
    MPI_Type_free(&c);
    return mpi_fail(rc, fn, "MPI_Type_commit");
  }
  d->mpi_elem = c;
  d->owns_elem = true;
  return register_derived(std::move(d), newtype);
}

dart_ret_t dart_type_destroy(dart_datatype_t *dart_type) {
  const char *fn = "dart_type_destroy";
  DART_TRY(check_init(fn));
  if (dart_type == nullptr) return fail(DART_ERR_INVAL, fn, "dart_type is NULL");
  if (*dart_type > DART_TYPE_UNDEFINED && *dart_type < DART_TYPE_LAST)
    return fail(DART_ERR_INVAL, fn, "basic types cannot be destroyed");
  Datatype *d = reinterpret_cast<Datatype *>(*dart_type);
  {
    std::lock_guard<std::mutex> lock(g_types_mutex);
    if (!g_derived.count(d))
      return fail(DART_ERR_INVAL, fn, "not a live derived datatype (already destroyed?)");
    if (d->layout_owned)
      return fail(DART_ERR_INVAL, fn,
                  "the type belongs to the layout cache "
                  "(dart_type_from_layout): hand it back with dart_type_layout_release");
    forget_derived(d);
  }
  free_derived(d);
  *dart_type = DART_TYPE_UNDEFINED;
  return DART_OK;
}

dart_ret_t dart_op_create(dart_operator_t op, void *userdata, bool commute, dart_datatype_t dtype,
                          bool dtype_is_tmp, dart_operation_t *new_op) {
  const char *fn = "dart_op_create";
  null_out(new_op, DART_OP_UNDEFINED);
  DART_TRY(check_init(fn));
  if (op == nullptr) return fail(DART_ERR_INVAL, fn, "op is NULL");
  if (new_op == nullptr) return fail(DART_ERR_INVAL, fn, "new_op is NULL");
  const Datatype *t;
  DART_TRY(check_type(dtype, fn, "dtype", &t));
  if (t->kind == Datatype::Strided || t->kind == Datatype::Indexed)
    return fail(DART_ERR_INVAL, fn, "dtype must be a basic or custom type");
  std::unique_ptr<OpInfo> o(new OpInfo());
  o->fn = op;
  o->userdata = userdata;
  o->dtype = dtype;
  o->dtype_is_tmp = dtype_is_tmp;
  DART_MPI(MPI_Type_dup(t->mpi_elem, &o->mpi_type), fn);
  // The trampoline finds the user function through this attribute of the operand type.
  dart_ret_t rc = mpi_check(MPI_Type_set_attr(o->mpi_type, g_op_keyval, o.get()), fn,
                            "MPI_Type_set_attr");
  if (rc == DART_OK)
    rc = mpi_check(MPI_Op_create(&user_op_trampoline, commute ? 1 : 0, &o->mpi_op), fn,
                   "MPI_Op_create");
  if (rc != DART_OK) {
    MPI_Type_free(&o->mpi_type);
    return rc;
  }
  std::lock_guard<std::mutex> lock(g_types_mutex);
  g_ops.insert(o.get());
  *new_op = (dart_operation_t)(intptr_t)o.release();
  return DART_OK;
}

dart_ret_t dart_op_destroy(dart_operation_t *op) {
  const char *fn = "dart_op_destroy";
  DART_TRY(check_init(fn));
  if (op == nullptr) return fail(DART_ERR_INVAL, fn, "op is NULL");
  OpInfo *o = reinterpret_cast<OpInfo *>(*op);
  {
    std::lock_guard<std::mutex> lock(g_types_mutex);
    if (!g_ops.erase(o)) return fail(DART_ERR_INVAL, fn, "not a live user-defined operation");
  }
  MPI_Op_free(&o->mpi_op);
  MPI_Type_free(&o->mpi_type);
  if (o->dtype_is_tmp && !(o->dtype > DART_TYPE_UNDEFINED && o->dtype < DART_TYPE_LAST)) {
    dart_datatype_t t = o->dtype;
    dart_type_destroy(&t);
  }
  delete o;
  *op = DART_OP_UNDEFINED;
  return DART_OK;
}

}  // extern "C"
