// SPDX-License-Identifier: BSD-3-Clause
// Array files (dart_array.h): NumPy .npy headers and the collective save and load of a
// distributed array through MPI-IO, each unit writing its own interior with one
// collective call through a subarray file view (a save), or reading it through a view of
// a file handle of its own (a load).
//
// The .npy format (NumPy's numpy/lib/format.py, "NEP 1"): the magic "\x93NUMPY", the
// format's major and minor version bytes, the header's length (uint16 little-endian in
// 1.0, uint32 in 2.0 and 3.0), the header: the repr of a dict with the keys 'descr',
// 'fortran_order' and 'shape' in this order, spaces and one '\n', so that the data starts
// at a multiple of 64 bytes. NumPy also puts 21 - len(repr(shape[0])) spaces after the
// dict (room for the first extent to grow in place) and then pads; a header whose length
// does not fit the 1.0 field makes a 2.0 file. We write exactly what np.save writes, so
// the files compare byte for byte (tests/python checks it against the NumPy installed).
#include "array.h"

#include <mpi.h>

#include <dash/dart/if/dart_mpi.h>

#include <cerrno>
#include <cstdarg>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fault.h"
#include "files.h"

namespace dart {
namespace array {
namespace {

constexpr size_t kAlign = 64;           // ARRAY_ALIGN of numpy/lib/format.py
constexpr size_t kGrowthDigits = 21;    // GROWTH_AXIS_MAX_DIGITS
constexpr char kMagic[] = "\x93NUMPY";  // 6 bytes

bool little_endian() {
  const uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// The .npy descr of a point type, or "" for one .npy cannot describe without a
// structured dtype.
std::string descr_of(dart_datatype_t t, int components) {
  const size_t size = basic_type_size(t);
  const bool floating = t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE || t == DART_TYPE_LONG_DOUBLE;
  if (components == 2 && floating) return "<c" + std::to_string(2 * size);
  if (components != 1 || size == 0) return "";
  if (floating) return "<f" + std::to_string(size);
  if (t == DART_TYPE_BYTE) return "|i1";
  const bool is_unsigned = t == DART_TYPE_UINT || t == DART_TYPE_ULONG || t == DART_TYPE_ULONGLONG;
  return std::string(is_unsigned ? "<u" : "<i") + std::to_string(size);
}

// The DART point type of a descr (the first basic type with it: LONG before LONGLONG).
bool type_of(const std::string &descr, dart_datatype_t *t, int *components) {
  static const dart_datatype_t kAll[] = {
#define DART_X_IO_TYPE_(name, ...) DART_TYPE_##name,
      DART_BASIC_TYPE_LIST(DART_X_IO_TYPE_)
#undef DART_X_IO_TYPE_
  };
  for (int c = 1; c <= 2; ++c)
    for (dart_datatype_t x : kAll)
      if (descr_of(x, c) == descr) {
        *t = x;
        *components = c;
        return true;
      }
  return false;
}

// What np.save writes before the data.
std::string npy_header(const std::string &descr, int ndim, const int64_t *shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (int d = 0; d < ndim; ++d) dict += std::to_string((long long)shape[d]) + ", ";
  if (ndim > 1)
    dict.resize(dict.size() - 2);  // "(13, 11)", but "(13,)"
  else if (ndim == 1)
    dict.resize(dict.size() - 1);
  dict += "), }";
  const size_t first = std::to_string((long long)shape[0]).size();
  if (first < kGrowthDigits) dict.append(kGrowthDigits - first, ' ');
  const size_t hlen = dict.size() + 1;  // with the final '\n'
  for (int major = 1; major <= 2; ++major) {
    const size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
    const size_t pad = kAlign - (prefix + hlen) % kAlign;
    const size_t total = hlen + pad;
    if (major == 1 && total > 0xffff) continue;
    std::string h(kMagic, 6);
    h += (char)major;
    h += (char)0;
    for (size_t k = 0; k < prefix - 8; ++k) h += (char)((total >> (8 * k)) & 0xff);
    h += dict;
    h.append(pad, ' ');
    h += '\n';
    return h;
  }
  return "";  // not reached: the 2.0 field holds any header
}

// A parsed header (every unit gets unit 0's through one broadcast).
struct Head {
  int32_t code;  // DART_OK or the refusal
  int32_t ndim;
  int32_t components;
  int32_t errnum;  // the file system's errno behind a refusal (dart_error_errno)
  int64_t shape[kMaxDims];
  int64_t offset;  // where the data starts
  int64_t dtype;
  char text[800];  // the reason of a refusal
};

dart_ret_t refuse(Head *h, dart_ret_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
dart_ret_t refuse(Head *h, dart_ret_t code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(h->text, sizeof h->text, fmt, ap);
  va_end(ap);
  h->code = code;
  return code;
}

// The value after 'key': in a header dict, or nullptr.
const char *value_of(const std::string &dict, const char *key) {
  const std::string k = std::string("'") + key + "'";
  size_t at = dict.find(k);
  if (at == std::string::npos) return nullptr;
  at = dict.find(':', at + k.size());
  if (at == std::string::npos) return nullptr;
  const char *p = dict.c_str() + at + 1;
  while (*p == ' ') ++p;
  return p;
}

// Reads and checks the header of `path` (local).
dart_ret_t read_head(const char *path, Head *h) {
  std::memset(h, 0, sizeof *h);
  const int fd = open(path, O_RDONLY);
  if (fd < 0) {
    h->errnum = errno;
    return refuse(h, DART_ERR_OTHER, "cannot open '%s': %s", path, std::strerror(h->errnum));
  }
  struct stat st;
  unsigned char pre[12];
  std::string dict;
  ssize_t got = fstat(fd, &st) == 0 ? read(fd, pre, sizeof pre) : -1;
  dart_ret_t rc = DART_OK;
  if (got < 0) {
    h->errnum = errno;
    rc = refuse(h, DART_ERR_OTHER, "cannot read '%s': %s", path, std::strerror(h->errnum));
  } else if (got < 10 || std::memcmp(pre, kMagic, 6) != 0) {
    rc = refuse(h, DART_ERR_INVAL, "'%s' is not a .npy file (no NumPy magic string)", path);
  } else if (pre[6] < 1 || pre[6] > 3) {
    rc = refuse(h, DART_ERR_INVAL, "'%s' has .npy format version %d.%d, not 1.0, 2.0 or 3.0", path,
                pre[6], pre[7]);
  } else {
    const size_t prefix = pre[6] == 1 ? 10 : 12;
    size_t hlen = 0;
    for (size_t k = 8; k < prefix; ++k) hlen |= (size_t)pre[k] << (8 * (k - 8));
    dict.resize(hlen);
    if ((size_t)got < prefix || pread(fd, &dict[0], hlen, (off_t)prefix) != (ssize_t)hlen)
      rc = refuse(h, DART_ERR_INVAL, "'%s' is truncated: its .npy header ends early", path);
    h->offset = (int64_t)(prefix + hlen);
  }
  close(fd);
  if (rc != DART_OK) return rc;
  // The dict: 'descr' a quoted string, 'fortran_order' True/False, 'shape' a tuple.
  const char *d = value_of(dict, "descr"), *f = value_of(dict, "fortran_order"),
             *s = value_of(dict, "shape");
  if (!d || !f || !s || *d != '\'' || *s != '(')
    return refuse(h, DART_ERR_INVAL,
                  "'%s': the .npy header is not one DART reads (a simple dtype, fortran_order "
                  "and a shape): %.200s",
                  path, dict.c_str());
  const char *end = std::strchr(d + 1, '\'');
  const std::string descr = end ? std::string(d + 1, end) : "";
  if (std::strncmp(f, "True", 4) == 0)
    return refuse(h, DART_ERR_INVAL,
                  "'%s' holds Fortran-ordered data (fortran_order: True); DART reads C order "
                  "(save np.ascontiguousarray(x), or the transposed array)",
                  path);
  if (std::strncmp(f, "False", 5) != 0)
    return refuse(h, DART_ERR_INVAL, "'%s': fortran_order is neither True nor False", path);
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  int comps = 0;
  if (!type_of(descr, &t, &comps))
    return refuse(h, DART_ERR_INVAL,
                  "'%s' holds dtype '%s', which a DART array cannot hold (little-endian "
                  "integers of 1 (signed), 2, 4, 8 bytes, floats of 4, 8, 16 bytes, complex of "
                  "8, 16, 32 bytes)",
                  path, descr.c_str());
  int nd = 0;
  int64_t shape[kMaxDims + 1];
  for (const char *p = s + 1; *p != ')';) {
    while (*p == ' ' || *p == ',') ++p;
    if (*p == ')') break;
    char *next = nullptr;
    errno = 0;
    const long long v = std::strtoll(p, &next, 10);
    if (next == p || errno != 0 || v < 0)
      return refuse(h, DART_ERR_INVAL, "'%s': the shape in the .npy header is unreadable", path);
    if (nd <= kMaxDims) shape[nd] = v;
    ++nd;
    p = next;
  }
  if (nd < 1 || nd > kMaxDims)
    return refuse(h, DART_ERR_INVAL,
                  "'%s' holds a %d-dimensional array; DART arrays have 1 to "
                  "DART_ARRAY_MAX_DIMS (%d) dimensions",
                  path, nd, kMaxDims);
  unsigned __int128 bytes = basic_type_size(t) * (size_t)comps;
  for (int k = 0; k < nd; ++k) {
    if (shape[k] == 0)
      return refuse(h, DART_ERR_INVAL, "'%s' holds an empty array (extent 0 in dimension %d)", path,
                    k);
    bytes *= (unsigned __int128)shape[k];
  }
  if ((unsigned __int128)st.st_size < (unsigned __int128)h->offset + bytes)
    return refuse(h, DART_ERR_INVAL,
                  "'%s' is truncated: %lld bytes of data, the header's shape needs %.0f", path,
                  (long long)st.st_size - (long long)h->offset, (double)bytes);
  h->ndim = nd;
  h->components = comps;
  h->dtype = (int64_t)t;
  for (int k = 0; k < nd; ++k) h->shape[k] = shape[k];
  return DART_OK;
}

// The MPI subarray of bytes that is the box `sub` at `start` of a C-order block `sizes`
// (points of point_size bytes), or MPI_DATATYPE_NULL on failure (rc set).
MPI_Datatype box_bytes(int nd, const Index &sizes, const Index &sub, const Index &start,
                       size_t point_size, const char *fn, dart_ret_t *rc) {
  int sz[kMaxDims + 1], su[kMaxDims + 1], st[kMaxDims + 1];
  for (int d = 0; d < nd; ++d) {
    if (sizes[d] > INT_MAX) {
      *rc = fail(DART_ERR_INVAL, fn,
                 "extent %" PRId64
                 " of dimension %d is beyond MPI-IO's "
                 "int",
                 sizes[d], d);
      return MPI_DATATYPE_NULL;
    }
    sz[d] = (int)sizes[d];
    su[d] = (int)sub[d];
    st[d] = (int)start[d];
  }
  sz[nd] = su[nd] = (int)point_size;
  st[nd] = 0;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int mrc = MPI_Type_create_subarray(nd + 1, sz, su, st, MPI_ORDER_C, MPI_BYTE, &t);
  if (mrc == MPI_SUCCESS) mrc = MPI_Type_commit(&t);
  if (mrc != MPI_SUCCESS) {
    *rc = mpi_fail(mrc, fn, "MPI_Type_create_subarray");
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    return MPI_DATATYPE_NULL;
  }
  return t;
}

// The collective write or read of every unit's interior at `offset` of the open file:
// the view, then one write_all/read_all. Every unit makes every collective call, also
// after a local failure (it then moves nothing); returns the first local failure.
// The bytes MPI says it moved must be the block's: a read past the end of the file moves
// fewer and is no error to MPI (the rest of the buffer would keep what it held), and
// Open MPI 4.1's ompio ends a write that the file system took only in part (EFBIG,
// ENOSPC) without an error (issue 34); the caller checks the file itself too.
dart_ret_t transfer_all(dart_array_struct *a, MPI_File fh, int64_t offset, bool write,
                        const char *path, const char *fn) {
  const int nd = a->dc.ndim;
  Index ext{}, halo{};
  MPI_Count want = (MPI_Count)a->point_size;
  for (int d = 0; d < nd; ++d) {
    ext[d] = a->hi[d] - a->lo[d];
    halo[d] = a->dc.halo_lo[d];
    want *= (MPI_Count)ext[d];
  }
  dart_ret_t rc = DART_OK;
  MPI_Datatype file_t = box_bytes(nd, a->dc.shape, ext, a->lo, a->point_size, fn, &rc);
  MPI_Datatype mem_t = box_bytes(nd, a->local_shape, ext, halo, a->point_size, fn, &rc);
  const bool ok = rc == DART_OK;
  // A unit without types takes part with an empty view and count 0.
  int mrc = MPI_File_set_view(fh, (MPI_Offset)offset, MPI_BYTE, ok ? file_t : MPI_BYTE, "native",
                              MPI_INFO_NULL);
  if (mrc != MPI_SUCCESS && rc == DART_OK) rc = mpi_fail(mrc, fn, "MPI_File_set_view");
  MPI_Status status;
  const int count = ok && mrc == MPI_SUCCESS ? 1 : 0;
  void *buf = a->local;
  mrc = write ? MPI_File_write_all(fh, buf, count, ok ? mem_t : MPI_BYTE, &status)
              : MPI_File_read_all(fh, buf, count, ok ? mem_t : MPI_BYTE, &status);
  if (mrc != MPI_SUCCESS && rc == DART_OK)
    rc = mpi_fail(mrc, fn, write ? "MPI_File_write_all" : "MPI_File_read_all");
  if (rc == DART_OK && count == 1) {
    MPI_Count moved = 0;
    mrc = MPI_Get_elements_x(&status, MPI_BYTE, &moved);
    if (mrc != MPI_SUCCESS)
      rc = mpi_fail(mrc, fn, "MPI_Get_elements_x");
    else if (moved != want)
      rc = fail(DART_ERR_OTHER, fn, "%s '%s': MPI-IO %s %lld of this unit's %lld bytes%s",
                write ? "cannot save to" : "cannot load", path, write ? "wrote" : "read",
                (long long)moved, (long long)want,
                write ? ""
                      : " (the file is shorter than its header says: truncated while "
                        "it was read?)");
  }
  if (write && rc == DART_OK && detail::fault_armed_fires(detail::FaultSite::FileWrite))
    rc = detail::fault_fail(detail::FaultSite::FileWrite, fn, "MPI_File_write_all");
  if (file_t != MPI_DATATYPE_NULL) MPI_Type_free(&file_t);
  if (mem_t != MPI_DATATYPE_NULL) MPI_Type_free(&mem_t);
  return rc;
}

}  // namespace
}  // namespace array
}  // namespace dart

using namespace dart::array;

extern "C" {

dart_ret_t dart_array_save(dart_array_t a, const char *path) {
  const char *fn = "dart_array_save";
  if (a == nullptr) return fail(DART_ERR_INVAL, fn, "array is DART_ARRAY_NULL");
  dart_ret_t local = DART_OK;
  const std::string descr = descr_of(a->dtype, a->components);
  if (path == nullptr || *path == '\0')
    local = fail(DART_ERR_INVAL, fn, "path is NULL or empty");
  else if (descr.empty())
    local = fail(DART_ERR_INVAL, fn,
                 "a .npy file cannot hold points of %d x %s (one basic type, or two floating "
                 "ones: complex)",
                 a->components, basic_type_name(a->dtype).c_str());
  else if (!little_endian())
    local = fail(DART_ERR_INVAL, fn, "the .npy data is written little-endian; this host is not");
  const std::string p = local == DART_OK ? path : "";
  if (local == DART_OK && a->myid == 0) local = check_target(p, fn);
  DART_TRY(agree(a->team, local, hash_text(p), [&] { return "path '" + p + "'"; }, fn, true));

  // Unit 0 names the temporary file next to path; everybody opens it.
  MPI_Comm comm = MPI_COMM_NULL;
  DART_ARRAY_TRY(dart_team_comm(a->team, &comm), fn);
  char tmp[4096] = "";
  if (a->myid == 0) std::snprintf(tmp, sizeof tmp, "%s", temporary_name(p).c_str());
  DART_ARRAY_TRY(dart_bcast(tmp, sizeof tmp, DART_TYPE_BYTE, dart_team_unit_t{0}, a->team), fn);
  MPI_File fh = MPI_FILE_NULL;
  int mrc = MPI_File_open(comm, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_EXCL,
                          MPI_INFO_NULL, &fh);
  local = mrc == MPI_SUCCESS
              ? DART_OK
              : naming_path(mpi_fail(mrc, fn, "MPI_File_open"), "cannot save to", p, fn);
  // MPI_File_open is collective and reports one outcome; agree anyway (a unit without
  // the file must not be left in a collective of the others').
  if (dart_ret_t rc = agree(
          a->team, local, 0, [] { return std::string(); }, fn, true);
      rc != DART_OK) {
    if (fh != MPI_FILE_NULL) MPI_File_close(&fh);
    if (a->myid == 0) unlink(tmp);
    return rc;
  }
  // The header (unit 0), the data (everybody), the sync and the close.
  const std::string head = npy_header(descr, a->dc.ndim, a->dc.shape.data());
  local = DART_OK;
  if (a->myid == 0) {
    MPI_Status st;
    mrc = MPI_File_write_at(fh, 0, head.data(), (int)head.size(), MPI_BYTE, &st);
    int wrote = 0;
    if (mrc != MPI_SUCCESS)
      local = mpi_fail(mrc, fn, "MPI_File_write_at");
    else if (MPI_Get_count(&st, MPI_BYTE, &wrote) != MPI_SUCCESS || wrote != (int)head.size())
      local = fail(DART_ERR_OTHER, fn,
                   "cannot save to '%s': MPI-IO wrote %d of the header's "
                   "%zu bytes",
                   p.c_str(), wrote, head.size());
  }
  const dart_ret_t wrc = transfer_all(a, fh, (int64_t)head.size(), true, p.c_str(), fn);
  if (local == DART_OK) local = wrc;
  mrc = MPI_File_sync(fh);
  if (mrc != MPI_SUCCESS && local == DART_OK) local = mpi_fail(mrc, fn, "MPI_File_sync");
  mrc = MPI_File_close(&fh);
  if (mrc != MPI_SUCCESS && local == DART_OK) local = mpi_fail(mrc, fn, "MPI_File_close");
  // The file itself, whatever MPI said: its size, and fsync's outcome.
  if (local == DART_OK && a->myid == 0) {
    int64_t data = (int64_t)a->point_size;
    for (int d = 0; d < a->dc.ndim; ++d) data *= a->dc.shape[d];
    local = check_written(tmp, p, (int64_t)head.size() + data, true, fn);
  }
  local = naming_path(local, "cannot save to", p, fn);
  return commit_temporary(a->team, a->myid == 0, local, tmp, p, fn);
}

dart_ret_t dart_array_file_info(const char *path, int32_t *ndim, int64_t *shape,
                                dart_datatype_t *dtype, int32_t *components) {
  const char *fn = "dart_array_file_info";
  if (path == nullptr) return fail(DART_ERR_INVAL, fn, "path is NULL");
  Head h;
  if (read_head(path, &h) != DART_OK)
    return with_errno(fail((dart_ret_t)h.code, fn, "%s", h.text), h.errnum);
  if (ndim) *ndim = h.ndim;
  if (shape)
    for (int d = 0; d < h.ndim; ++d) shape[d] = h.shape[d];
  if (dtype) *dtype = (dart_datatype_t)h.dtype;
  if (components) *components = h.components;
  return DART_OK;
}

dart_ret_t dart_array_load(const char *path, const dart_array_spec_t *spec, dart_array_t *out) {
  const char *fn = "dart_array_load";
  if (out == nullptr) return fail(DART_ERR_INVAL, fn, "array is NULL");
  *out = DART_ARRAY_NULL;
  if (spec == nullptr) return fail(DART_ERR_INVAL, fn, "spec is NULL");
  dart_team_unit_t me;
  DART_ARRAY_TRY(dart_team_myid(spec->team, &me), fn);
  // Every unit names the same file.
  const std::string p = path ? path : "";
  const dart_ret_t named = spec->refusal != nullptr ? refused(*spec, fn)
                           : path                   ? DART_OK
                                                    : fail(DART_ERR_INVAL, fn, "path is NULL");
  DART_TRY(agree(spec->team, named, hash_text(p), [&] { return "path '" + p + "'"; }, fn));
  // Unit 0 reads the header; everybody gets its outcome (one message everywhere).
  Head h;
  std::memset(&h, 0, sizeof h);
  if (me.id == 0) read_head(path, &h);
  DART_ARRAY_TRY(dart_bcast(&h, sizeof h, DART_TYPE_BYTE, dart_team_unit_t{0}, spec->team), fn);
  if (h.code != DART_OK) return with_errno(fail((dart_ret_t)h.code, fn, "%s", h.text), h.errnum);
  // The spec with the file's shape and type; a mismatch of the caller's is a bad argument.
  dart_array_spec_t s = *spec;
  dart_ret_t local = DART_OK;
  const dart_datatype_t ft = (dart_datatype_t)h.dtype;
  if (s.ndim != 0 && s.ndim != h.ndim)
    local = fail(DART_ERR_INVAL, fn, "'%s' holds a %d-dimensional array, not %d", path, h.ndim,
                 s.ndim);
  else if (s.dtype != DART_TYPE_UNDEFINED &&
           descr_of(s.dtype, s.components) != descr_of(ft, h.components))
    local = fail(DART_ERR_INVAL, fn, "'%s' holds dtype '%s', not '%s' (%s)", path,
                 descr_of(ft, h.components).c_str(), descr_of(s.dtype, s.components).c_str(),
                 basic_type_name(s.dtype).c_str());
  if (local == DART_OK) {
    s.ndim = h.ndim;
    for (int d = 0; d < kMaxDims; ++d) s.shape[d] = d < h.ndim ? h.shape[d] : 0;
    if (s.dtype == DART_TYPE_UNDEFINED) s.dtype = ft;
    s.components = h.components;
  }
  DART_TRY(agree(s.team, local, 0, [] { return std::string(); }, fn));
  dart_array_t a = DART_ARRAY_NULL;
  DART_TRY(array_create(&s, &a, fn, false));  // the read fills every interior
  // Every unit reads its interior through a file handle of its own (MPI_COMM_SELF): a
  // file deleted or replaced while the units open it can be opened by some and not by
  // others, and Open MPI 4.1's ompio then returns success on some units only, whose
  // collective MPI_File_close would wait for the others forever (seen: issue 34). The
  // units agree on the outcome instead.
  MPI_File fh = MPI_FILE_NULL;
  int mrc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  local = mrc == MPI_SUCCESS
              ? DART_OK
              : naming_path(mpi_fail(mrc, fn, "MPI_File_open"), "cannot load", path, fn);
  dart_ret_t rc = agree(s.team, local, 0, [] { return std::string(); }, fn, true);
  if (rc != DART_OK && fh != MPI_FILE_NULL) {
    MPI_File_close(&fh);
  } else if (rc == DART_OK) {
    local = transfer_all(a, fh, h.offset, false, path, fn);
    // A file cut short while it was read: MPI may have moved the bytes of the page cache
    // or zeros; the size after the read tells.
    MPI_Offset size = 0;
    if (local == DART_OK) {
      int64_t data = (int64_t)a->point_size;
      for (int d = 0; d < h.ndim; ++d) data *= h.shape[d];
      const int64_t bytes = h.offset + data;
      mrc = MPI_File_get_size(fh, &size);
      if (mrc != MPI_SUCCESS)
        local = mpi_fail(mrc, fn, "MPI_File_get_size");
      else if ((int64_t)size < bytes)
        local = fail(DART_ERR_OTHER, fn,
                     "cannot load '%s': the file has %lld bytes now, its "
                     "header says %lld (truncated while it was read)",
                     path, (long long)size, (long long)bytes);
    }
    mrc = MPI_File_close(&fh);
    if (mrc != MPI_SUCCESS && local == DART_OK) local = mpi_fail(mrc, fn, "MPI_File_close");
    local = naming_path(local, "cannot load", path, fn);
    rc = agree(s.team, local, 0, [] { return std::string(); }, fn, true);
  }
  if (rc != DART_OK) {
    const std::string why = dart_error_detail();
    const int errnum = last_errno();
    dart_array_destroy(&a);
    return with_errno(fail(rc, fn, "%s", without_fn(why, fn).c_str()), errnum);
  }
  *out = a;
  return DART_OK;
}

}  // extern "C"
