/*
 * dart_f_shim.c -- the few helpers of the Fortran module that are easier in C.
 *
 * Part of libdartmpi_f. Calls only the public DART API (dart.h, dart_mpi.h) and MPI's C
 * API; the core's internals are never touched.
 *
 *  - dartf_team_comm: dart_team_comm + MPI_Comm_c2f, so that Fortran gets the team's
 *    communicator as an mpi_f08 handle without knowing what a C MPI_Comm is (an int in
 *    MPICH, a pointer in Open MPI).
 *  - dartf_section: reads the Fortran array descriptor (ISO_Fortran_binding.h) of a
 *    non-contiguous array or section and describes it as one DART datatype: a strided
 *    type when the elements form blocks of equal length at a uniform stride (a halo row
 *    a(i,:), a column block a(2:n-1, j), every other element a(1:n:2), a 3D face), an
 *    indexed type otherwise (a 3D sub-block). The datatypes are cached (keyed by the
 *    layout), so a halo exchange creates its types once.
 */
#include <ISO_Fortran_binding.h>

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Message of the last failing helper on this thread (read by the Fortran layer). */
static _Thread_local char t_message[1024] = "";

const char *dartf_message(void) { return t_message; }

static int dartf_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int dartf_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t_message, sizeof t_message, fmt, ap);
  va_end(ap);
  return code;
}

/* A failed DART call inside a helper: keep the core's detail message. */
static int dartf_fail_dart(int code) {
  snprintf(t_message, sizeof t_message, "%s", dart_error_detail());
  return code;
}

/* ---------------------------------------------------------------------------------- */
/* dart_team_comm as a Fortran handle                                                  */
/* ---------------------------------------------------------------------------------- */
int dartf_team_comm(dart_team_t team, MPI_Fint *fcomm) {
  MPI_Comm comm = MPI_COMM_NULL;
  dart_ret_t rc = dart_team_comm(team, &comm);
  if (rc != DART_OK) return dartf_fail_dart(rc);
  *fcomm = MPI_Comm_c2f(comm);
  return DART_OK;
}

/* ---------------------------------------------------------------------------------- */
/* Section datatypes                                                                   */
/* ---------------------------------------------------------------------------------- */
enum { kCacheSize = 64, kMaxDims = CFI_MAX_RANK };

typedef struct {
  int used;
  unsigned long stamp;         /* last use, for LRU replacement */
  dart_datatype_t base;
  size_t blocklen;             /* base elements per block */
  int ndims;                   /* outer dimensions: 1 = strided, >= 2 = indexed */
  size_t ext[kMaxDims];        /* extents (indexed only) */
  size_t stride[kMaxDims];     /* strides in base elements */
  dart_datatype_t type;
} cache_entry;

static cache_entry g_cache[kCacheSize];
static unsigned long g_clock = 0;
static pthread_mutex_t g_cache_mutex = PTHREAD_MUTEX_INITIALIZER;

static size_t basic_size(dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: return 1;
    case DART_TYPE_SHORT: return sizeof(short);
    case DART_TYPE_INT: return sizeof(int);
    case DART_TYPE_UINT: return sizeof(unsigned);
    case DART_TYPE_LONG: return sizeof(long);
    case DART_TYPE_ULONG: return sizeof(unsigned long);
    case DART_TYPE_LONGLONG: return sizeof(long long);
    case DART_TYPE_ULONGLONG: return sizeof(unsigned long long);
    case DART_TYPE_FLOAT: return sizeof(float);
    case DART_TYPE_DOUBLE: return sizeof(double);
    case DART_TYPE_LONG_DOUBLE: return sizeof(long double);
    default: return 0;
  }
}

static int same_key(const cache_entry *e, dart_datatype_t base, size_t blocklen, int ndims,
                    const size_t *ext, const size_t *stride) {
  if (!e->used || e->base != base || e->blocklen != blocklen || e->ndims != ndims) return 0;
  if (ndims == 1) return e->stride[0] == stride[0];
  for (int i = 0; i < ndims; ++i)
    if (e->ext[i] != ext[i] || e->stride[i] != stride[i]) return 0;
  return 1;
}

/* Creates the indexed type of the blocks at the multi-indices of (ext, stride). */
static int make_indexed(dart_datatype_t base, size_t blocklen, int ndims, const size_t *ext,
                        const size_t *stride, dart_datatype_t *out) {
  size_t nblocks = 1;
  for (int i = 0; i < ndims; ++i) {
    if (ext[i] != 0 && nblocks > SIZE_MAX / ext[i])
      return dartf_fail(DART_ERR_INVAL, "too many blocks");
    nblocks *= ext[i];
  }
  size_t *lens = malloc(nblocks * sizeof(size_t));
  size_t *offs = malloc(nblocks * sizeof(size_t));
  if (lens == NULL || offs == NULL) {
    free(lens);
    free(offs);
    return dartf_fail(DART_ERR_NOMEM,
                      "no memory for the %zu block offsets of an indexed type",
                      nblocks);
  }
  size_t idx[kMaxDims] = {0};
  size_t off = 0;
  for (size_t b = 0; b < nblocks; ++b) {
    lens[b] = blocklen;
    offs[b] = off;
    /* next multi-index, first dimension fastest (Fortran element order) */
    for (int i = 0; i < ndims; ++i) {
      if (++idx[i] < ext[i]) {
        off += stride[i];
        break;
      }
      off -= (ext[i] - 1) * stride[i];
      idx[i] = 0;
    }
  }
  dart_ret_t rc = dart_type_create_indexed(base, nblocks, lens, offs, out);
  free(lens);
  free(offs);
  return rc == DART_OK ? DART_OK : dartf_fail_dart(rc);
}

/* The cached type for a layout, created on first use. */
static int cached_type(dart_datatype_t base, size_t blocklen, int ndims, const size_t *ext,
                       const size_t *stride, dart_datatype_t *out) {
  pthread_mutex_lock(&g_cache_mutex);
  cache_entry *victim = &g_cache[0];
  for (int i = 0; i < kCacheSize; ++i) {
    cache_entry *e = &g_cache[i];
    if (same_key(e, base, blocklen, ndims, ext, stride)) {
      e->stamp = ++g_clock;
      *out = e->type;
      pthread_mutex_unlock(&g_cache_mutex);
      return DART_OK;
    }
    if (!e->used) {
      if (victim->used) victim = e;
    } else if (victim->used && e->stamp < victim->stamp) {
      victim = e;
    }
  }
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  int rc;
  if (ndims == 1) {
    dart_ret_t r = dart_type_create_strided(base, stride[0], blocklen, &t);
    rc = (r == DART_OK) ? DART_OK : dartf_fail_dart(r);
  } else {
    rc = make_indexed(base, blocklen, ndims, ext, stride, &t);
  }
  if (rc != DART_OK) {
    pthread_mutex_unlock(&g_cache_mutex);
    return rc;
  }
  /* Destroying a type does not disturb operations already started with it (dart_types.h),
   * so an evicted type may still be in flight in a handle operation. */
  if (victim->used) dart_type_destroy(&victim->type);
  victim->used = 1;
  victim->stamp = ++g_clock;
  victim->base = base;
  victim->blocklen = blocklen;
  victim->ndims = ndims;
  for (int i = 0; i < ndims; ++i) {
    victim->ext[i] = ext[i];
    victim->stride[i] = stride[i];
  }
  victim->type = t;
  *out = t;
  pthread_mutex_unlock(&g_cache_mutex);
  return DART_OK;
}

void dartf_type_cache_clear(int destroy) {
  pthread_mutex_lock(&g_cache_mutex);
  for (int i = 0; i < kCacheSize; ++i) {
    if (g_cache[i].used && destroy) dart_type_destroy(&g_cache[i].type);
    g_cache[i].used = 0;
  }
  pthread_mutex_unlock(&g_cache_mutex);
}

int dartf_type_cache_size(void) {
  int n = 0;
  pthread_mutex_lock(&g_cache_mutex);
  for (int i = 0; i < kCacheSize; ++i) n += g_cache[i].used;
  pthread_mutex_unlock(&g_cache_mutex);
  return n;
}

/*
 * Describe the array of descriptor d, whose elements are `parts` elements of the basic
 * DART type `base` each (2 for complex), as (address of the first element, number of
 * base elements, datatype). Contiguous arrays give the basic type itself.
 */
int dartf_section(const CFI_cdesc_t *d, dart_datatype_t base, int parts, void **addr,
                  size_t *nelem, dart_datatype_t *dtype) {
  size_t bsize = basic_size(base);
  if (bsize == 0 || parts < 1 || d->elem_len != bsize * (size_t)parts)
    return dartf_fail(DART_ERR_INVAL, "element size %zu does not match %d "
                      "element(s) of DART type %ld", (size_t)d->elem_len, parts, (long)base);
  size_t elem = d->elem_len;
  size_t total = 1;
  int nd = 0;
  size_t ext[kMaxDims];
  ptrdiff_t sm[kMaxDims];
  for (int i = 0; i < d->rank; ++i) {
    CFI_index_t e = d->dim[i].extent;
    if (e < 0) /* assumed-size: no last extent */
      return dartf_fail(DART_ERR_INVAL, "assumed-size arrays have no size; "
                        "pass a section with an upper bound");
    total *= (size_t)e;
    if (e > 1) {
      ext[nd] = (size_t)e;
      sm[nd] = d->dim[i].sm;
      ++nd;
    }
  }
  *addr = d->base_addr;
  *nelem = total * (size_t)parts;
  *dtype = base;
  if (total == 0) return DART_OK;
  for (int i = 0; i < nd; ++i) {
    if (sm[i] <= 0)
      return dartf_fail(DART_ERR_INVAL, "arrays with negative or zero strides "
                        "(e.g. a(n:1:-1)) cannot be described by a DART datatype; reverse "
                        "the data or pass a copy");
    if ((size_t)sm[i] % bsize != 0)
      return dartf_fail(DART_ERR_INVAL, "stride of %td bytes is not a multiple "
                        "of the element size %zu", sm[i], bsize);
  }
  /* Leading dimensions that continue the contiguous block. */
  size_t blk = elem; /* bytes per contiguous block */
  int first = 0;
  while (first < nd && (size_t)sm[first] == blk) {
    blk *= ext[first];
    ++first;
  }
  if (first == nd) return DART_OK; /* contiguous after all */
  /* Merge outer dimensions that continue each other (a(:, 2:3, :) of a(n, 3, m) ...). */
  size_t oext[kMaxDims], ostr[kMaxDims];
  int no = 0;
  for (int i = first; i < nd; ++i) {
    size_t s = (size_t)sm[i];
    if (no > 0 && s == ostr[no - 1] * oext[no - 1]) {
      oext[no - 1] *= ext[i];
    } else {
      oext[no] = ext[i];
      ostr[no] = s;
      ++no;
    }
  }
  size_t blocklen = blk / bsize;
  for (int i = 0; i < no; ++i) ostr[i] /= bsize;
  if (no == 1 && ostr[0] < blocklen)
    return dartf_fail(DART_ERR_INVAL, "overlapping elements (stride %zu < "
                      "block %zu)", ostr[0], blocklen);
  return cached_type(base, blocklen, no, oext, ostr, dtype);
}
