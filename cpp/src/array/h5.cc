// SPDX-License-Identifier: BSD-3-Clause
// HDF5 files of arrays (dart_h5.h): parallel HDF5 over MPI-IO on the file's team. Every
// unit moves its interior block as one hyperslab with a collective transfer; the
// datasets carry netCDF-4 dimension scales. The temporary file and its replacement of
// the target ("w"), the target checks and the agreement are those of the .npy files
// (files.h, agree.cc).
//
// Parallel HDF5 wants every call that changes the file's metadata (creating a dataset,
// an attribute, a dimension scale, extending a dataset) made by every unit with the same
// arguments: each call here agrees on its arguments first (a hash of them), checks what
// it can before it creates anything, and agrees on the outcome after.
#include "files.h"

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#ifdef DART_HAVE_HDF5
#include <hdf5.h>
#include <hdf5_hl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dash/dart/if/dart_mpi.h>
#endif

struct dart_h5_file {
  dart_team_t team = DART_TEAM_NULL;
  int myid = 0;
  char mode = 'r';
  std::string path;  // the target
  std::string tmp;   // "w": the file written, renamed to path at close
#ifdef DART_HAVE_HDF5
  hid_t fid = -1;
#endif
  dart_ret_t failed = DART_OK;  // "w": the first failure, repeated at close
  std::string failure;
};

using namespace dart::array;

#ifndef DART_HAVE_HDF5

namespace {
dart_ret_t no_hdf5(const char *fn) {
  return fail(DART_ERR_INVAL, fn,
              "DART-MPI was built without HDF5 (configure with parallel HDF5 installed, "
              "Debian: libhdf5-mpich-dev or libhdf5-openmpi-dev; CMake option "
              "DART_ENABLE_HDF5)");
}
}  // namespace

extern "C" {
int dart_h5_available(void) { return 0; }
dart_ret_t dart_h5_open(const char *, const char *, dart_team_t, dart_h5_t *file) {
  if (file) *file = DART_H5_NULL;
  return no_hdf5("dart_h5_open");
}
dart_ret_t dart_h5_close(dart_h5_t *file) {
  if (file) *file = DART_H5_NULL;
  return no_hdf5("dart_h5_close");
}
dart_ret_t dart_array_write_h5(dart_h5_t, const char *, dart_array_t) {
  return no_hdf5("dart_array_write_h5");
}
dart_ret_t dart_array_write_h5_dims(dart_h5_t, const char *, dart_array_t, const char *const *) {
  return no_hdf5("dart_array_write_h5");
}
dart_ret_t dart_array_read_h5(dart_h5_t, const char *, const dart_array_spec_t *,
                              dart_array_t *array) {
  if (array) *array = DART_ARRAY_NULL;
  return no_hdf5("dart_array_read_h5");
}
dart_ret_t dart_array_append_h5(dart_h5_t, const char *, dart_array_t) {
  return no_hdf5("dart_array_append_h5");
}
dart_ret_t dart_array_append_h5_dims(dart_h5_t, const char *, dart_array_t, const char *const *) {
  return no_hdf5("dart_array_append_h5");
}
dart_ret_t dart_array_read_h5_step(dart_h5_t, const char *, int64_t, const dart_array_spec_t *,
                                   dart_array_t *array) {
  if (array) *array = DART_ARRAY_NULL;
  return no_hdf5("dart_array_read_h5_step");
}
dart_ret_t dart_h5_dataset_info(dart_h5_t, const char *, int32_t *, int64_t *, dart_datatype_t *,
                                int32_t *) {
  return no_hdf5("dart_h5_dataset_info");
}
dart_ret_t dart_h5_set_attr(dart_h5_t, const char *, const char *, dart_datatype_t, int64_t,
                            const void *) {
  return no_hdf5("dart_h5_set_attr");
}
dart_ret_t dart_h5_attr_info(dart_h5_t, const char *, const char *, dart_datatype_t *, int64_t *) {
  return no_hdf5("dart_h5_attr_info");
}
dart_ret_t dart_h5_get_attr(dart_h5_t, const char *, const char *, dart_datatype_t, int64_t, void *,
                            int64_t *) {
  return no_hdf5("dart_h5_get_attr");
}
dart_ret_t dart_h5_list(dart_h5_t, char *, int64_t) { return no_hdf5("dart_h5_list"); }
}  // extern "C"

#else  // DART_HAVE_HDF5

namespace {

// ---- handles and HDF5's error text -----------------------------------------------------

// An HDF5 identifier closed at scope exit (H5Oclose closes datasets, groups, types'
// objects; the others have their own close).
struct Id {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Id() = default;
  Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Id(const Id &) = delete;
  Id &operator=(const Id &) = delete;
  Id(Id &&o) noexcept : id(o.id), close(o.close) { o.id = -1; }
  Id &operator=(Id &&o) noexcept {
    reset();
    id = o.id;
    close = o.close;
    o.id = -1;
    return *this;
  }
  ~Id() { reset(); }
  void reset() {
    if (id >= 0 && close) close(id);
    id = -1;
  }
  bool ok() const { return id >= 0; }
  operator hid_t() const { return id; }
};

// The text of HDF5's error stack: its outermost and its innermost description
// ("unable to open file: file signature not found"), then the stack is cleared.
std::string h5_text() {
  struct Walk {
    std::string top, bottom;
  } w;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t *e, void *data) -> herr_t {
        auto *w = static_cast<Walk *>(data);
        const std::string d = e->desc ? e->desc : "";
        if (n == 0) w->top = d;
        w->bottom = d;
        return 0;
      },
      &w);
  H5Eclear2(H5E_DEFAULT);
  if (w.top.empty()) return "HDF5 reported no detail";
  return w.top == w.bottom ? w.top : w.top + ": " + w.bottom;
}

dart_ret_t h5_fail(const char *fn, const char *what, const std::string &path) {
  return fail(DART_ERR_OTHER, fn, "'%s': %s failed: %s", path.c_str(), what, h5_text().c_str());
}

void quiet_hdf5() {
  // Errors come back as codes with their text in the detail message; HDF5 prints its
  // stack on stderr by default.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

// ---- types ---------------------------------------------------------------------------

bool is_float(dart_datatype_t t) {
  return t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE || t == DART_TYPE_LONG_DOUBLE;
}
bool is_unsigned(dart_datatype_t t) {
  return t == DART_TYPE_UINT || t == DART_TYPE_ULONG || t == DART_TYPE_ULONGLONG;
}

// The HDF5 type of one element of t: in memory (native) or in the file (little-endian
// standard types; long double stays native: HDF5 has no standard one). A copy, or -1.
hid_t element_type(dart_datatype_t t, bool file) {
  const size_t size = basic_type_size(t);
  hid_t base = -1;
  if (t == DART_TYPE_FLOAT)
    base = file ? H5T_IEEE_F32LE : H5T_NATIVE_FLOAT;
  else if (t == DART_TYPE_DOUBLE)
    base = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
  else if (t == DART_TYPE_LONG_DOUBLE)
    base = H5T_NATIVE_LDOUBLE;
  else if (size != 0) {
    const bool u = is_unsigned(t);
    if (!file) {
      if (t == DART_TYPE_BYTE)
        base = H5T_NATIVE_SCHAR;
      else if (t == DART_TYPE_SHORT)
        base = H5T_NATIVE_SHORT;
      else if (t == DART_TYPE_INT)
        base = H5T_NATIVE_INT;
      else if (t == DART_TYPE_UINT)
        base = H5T_NATIVE_UINT;
      else if (t == DART_TYPE_LONG)
        base = H5T_NATIVE_LONG;
      else if (t == DART_TYPE_ULONG)
        base = H5T_NATIVE_ULONG;
      else if (t == DART_TYPE_LONGLONG)
        base = H5T_NATIVE_LLONG;
      else if (t == DART_TYPE_ULONGLONG)
        base = H5T_NATIVE_ULLONG;
    } else if (size == 1)
      base = u ? H5T_STD_U8LE : H5T_STD_I8LE;
    else if (size == 2)
      base = u ? H5T_STD_U16LE : H5T_STD_I16LE;
    else if (size == 4)
      base = u ? H5T_STD_U32LE : H5T_STD_I32LE;
    else if (size == 8)
      base = u ? H5T_STD_U64LE : H5T_STD_I64LE;
  }
  return base < 0 ? -1 : H5Tcopy(base);
}

// The type of a point: one element, or h5py's complex compound {r, i} of two floats.
Id point_type(dart_datatype_t t, int components, bool file) {
  if (components == 1) return Id(element_type(t, file), H5Tclose);
  if (components != 2 || !is_float(t)) return Id();
  Id e(element_type(t, file), H5Tclose);
  if (!e.ok()) return Id();
  const size_t s = H5Tget_size(e);
  Id c(H5Tcreate(H5T_COMPOUND, 2 * s), H5Tclose);
  if (!c.ok() || H5Tinsert(c, "r", 0, e) < 0 || H5Tinsert(c, "i", s, e) < 0) return Id();
  return c;
}

// What a file type is as a DART point type (false with `why` set when DART has none).
bool dart_type_of(hid_t ft, dart_datatype_t *t, int *components, std::string *why) {
  static const dart_datatype_t kAll[] = {
#define DART_X_H5_TYPE_(name, ...) DART_TYPE_##name,
      DART_BASIC_TYPE_LIST(DART_X_H5_TYPE_)
#undef DART_X_H5_TYPE_
  };
  const H5T_class_t cls = H5Tget_class(ft);
  const size_t size = H5Tget_size(ft);
  if (cls == H5T_INTEGER) {
    const bool u = H5Tget_sign(ft) == H5T_SGN_NONE;
    for (dart_datatype_t x : kAll)
      if (!is_float(x) && basic_type_size(x) == size && is_unsigned(x) == u) {
        *t = x;
        *components = 1;
        return true;
      }
    *why = std::string(u ? "an unsigned" : "a signed") + " integer of " + std::to_string(size) +
           " bytes";
    return false;
  }
  if (cls == H5T_FLOAT) {
    for (dart_datatype_t x : kAll)
      if (is_float(x) && basic_type_size(x) == size) {
        *t = x;
        *components = 1;
        return true;
      }
    *why = "a float of " + std::to_string(size) + " bytes";
    return false;
  }
  if (cls == H5T_COMPOUND && H5Tget_nmembers(ft) == 2) {
    char *n0 = H5Tget_member_name(ft, 0), *n1 = H5Tget_member_name(ft, 1);
    const bool ri = n0 && n1 && std::strcmp(n0, "r") == 0 && std::strcmp(n1, "i") == 0;
    H5free_memory(n0);
    H5free_memory(n1);
    Id m0(H5Tget_member_type(ft, 0), H5Tclose);
    if (ri && m0.ok() && H5Tget_class(m0) == H5T_FLOAT && 2 * H5Tget_size(m0) == size &&
        H5Tget_member_offset(ft, 1) == H5Tget_size(m0)) {
      int c = 0;
      if (dart_type_of(m0, t, &c, why)) {
        *components = 2;
        return true;
      }
    }
  }
  *why = cls == H5T_STRING     ? "strings"
         : cls == H5T_COMPOUND ? "a compound type other than complex {r, i}"
                               : "HDF5 type class " + std::to_string((int)cls);
  return false;
}

// The name of a point type as NumPy spells it ("float64", "complex128", "int32").
std::string numpy_name(dart_datatype_t t, int components) {
  const size_t s = basic_type_size(t);
  if (is_float(t))
    return (components == 2 ? "complex" : "float") + std::to_string(8 * s * (size_t)components);
  return (is_unsigned(t) ? "uint" : "int") + std::to_string(8 * s);
}

// ---- the agreement and the file's state ---------------------------------------------

uint64_t mix(uint64_t h, const std::string &s) { return hash_text(std::to_string(h) + "|" + s); }

// The outcome of a collective call on `f`, agreed over its team (one code and message
// everywhere). A failure of a file written with "w" is kept: close repeats it.
dart_ret_t keep(dart_h5_t f, dart_ret_t rc) {
  if (rc != DART_OK && f != DART_H5_NULL && f->mode == 'w' && f->failed == DART_OK) {
    f->failed = rc;
    f->failure = dart_error_detail();
  }
  return rc;
}

dart_ret_t settle(dart_h5_t f, dart_ret_t local, const char *fn) {
  return keep(f, agree(f->team, local, 0, [] { return std::string(); }, fn, true));
}

// The checks every call makes of the file and a name, then the agreement on the
// arguments (`key`, described by `what`).
dart_ret_t begin(dart_h5_t f, const char *name, uint64_t key, const std::string &what,
                 const char *fn, bool write, dart_array_t a = DART_ARRAY_NULL) {
  if (f == DART_H5_NULL) return fail(DART_ERR_INVAL, fn, "file is DART_H5_NULL");
  dart_ret_t local = DART_OK;
  if (write && a == DART_ARRAY_NULL && what.compare(0, 7, "dataset") == 0)
    local = fail(DART_ERR_INVAL, fn, "array is DART_ARRAY_NULL");
  else if (a != DART_ARRAY_NULL && a->team != f->team)
    local = fail(DART_ERR_INVAL, fn, "the array's team (%d) is not the file's (%d)", (int)a->team,
                 (int)f->team);
  else if (name == nullptr || *name == '\0')
    local = fail(DART_ERR_INVAL, fn, "'%s': the name is NULL or empty", f->path.c_str());
  else if (write && f->mode == 'r')
    local = fail(DART_ERR_INVAL, fn, "'%s' is open read-only (mode \"r\")", f->path.c_str());
  return agree(f->team, local, key, [&] { return what; }, fn, true);
}

// Whether the path `name` (slashes between groups) is a link of the file; its groups
// must exist too (H5Lexists fails for a missing intermediate group).
bool exists(hid_t fid, const std::string &name) {
  size_t at = 0;
  for (;;) {
    const size_t slash = name.find('/', at);
    const std::string part = name.substr(0, slash);
    if (!part.empty() && H5Lexists(fid, part.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (slash == std::string::npos) return true;
    at = slash + 1;
  }
}

bool is_dataset(hid_t fid, const std::string &name) {
  H5O_info_t info;
  return exists(fid, name) && H5Oget_info_by_name(fid, name.c_str(), &info, H5P_DEFAULT) >= 0 &&
         info.type == H5O_TYPE_DATASET;
}

// ---- dimension scales (netCDF-4) ---------------------------------------------------

// netCDF-4's NAME of a dimension that is no variable (netCDF-C's nc4hdf.c writes this
// text with the length); h5netcdf and netCDF read such a dataset as a bare dimension.
std::string bare_dimension_name(int64_t n) {
  char text[96];
  std::snprintf(text, sizeof text, "This is a netCDF dimension but not a netCDF variable.%10lld",
                (long long)n);
  return text;
}

// The length and unlimitedness of the scale `dim`, or false when it is no scale.
bool scale_extent(hid_t fid, const std::string &dim, int64_t *n, bool *unlimited) {
  Id d(H5Dopen2(fid, dim.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) return false;
  Id s(H5Dget_space(d), H5Sclose);
  hsize_t cur = 0, max = 0;
  const bool ok = H5DSis_scale(d) > 0 && H5Sget_simple_extent_ndims(s) == 1 &&
                  H5Sget_simple_extent_dims(s, &cur, &max) == 1;
  *n = (int64_t)cur;
  *unlimited = max == H5S_UNLIMITED;
  return ok;
}

// The names of the dimensions of a dataset of rank nd (given ones or the defaults) and
// the check that each existing one is a scale of that extent (unlimited: the first of a
// time series, any length). DART_OK or the refusal.
dart_ret_t dims_check(dart_h5_t f, const char *const *given, int nd, const int64_t *shape,
                      bool series, std::vector<std::string> *out, const char *fn) {
  out->clear();
  for (int d = 0; d < nd; ++d) {
    std::string n;
    if (given) {
      if (given[d] == nullptr || *given[d] == '\0' || std::strchr(given[d], '/'))
        return fail(DART_ERR_INVAL, fn, "dimension name %d is NULL, empty or has a '/'", d);
      n = given[d];
    } else {
      n = series && d == 0 ? "time" : "dim_" + std::to_string(series ? d - 1 : d);
    }
    for (const std::string &o : *out)
      if (o == n) return fail(DART_ERR_INVAL, fn, "dimension name '%s' is given twice", n.c_str());
    if (exists(f->fid, n)) {
      int64_t len = 0;
      bool unl = false;
      if (!scale_extent(f->fid, n, &len, &unl))
        return fail(DART_ERR_INVAL, fn,
                    "'%s': '%s' exists and is no dimension (name the dimensions with dims)",
                    f->path.c_str(), n.c_str());
      if (series && d == 0 ? !unl : (unl || len != shape[d]))
        return fail(DART_ERR_INVAL, fn,
                    "'%s': dimension '%s' has %s%lld points, this array %lld in dimension %d "
                    "(name the dimensions with dims)",
                    f->path.c_str(), n.c_str(), unl ? "an unlimited number of, now " : "",
                    (long long)len, (long long)shape[d], d);
    }
    out->push_back(n);
  }
  return DART_OK;
}

// Creates the missing scales of `dims` and attaches every one to the dataset.
dart_ret_t dims_attach(dart_h5_t f, hid_t did, const std::vector<std::string> &dims,
                       const int64_t *shape, bool series, const char *fn) {
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string &n = dims[d];
    if (!exists(f->fid, n)) {
      const bool unl = series && d == 0;
      hsize_t cur = unl ? 0 : (hsize_t)shape[d], max = unl ? H5S_UNLIMITED : cur;
      Id space(H5Screate_simple(1, &cur, &max), H5Sclose);
      Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
      hsize_t chunk = 1024;
      if (unl) H5Pset_chunk(dcpl, 1, &chunk);
      H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
      Id s(H5Dcreate2(f->fid, n.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
           H5Dclose);
      if (!s.ok()) return h5_fail(fn, ("H5Dcreate2 of dimension '" + n + "'").c_str(), f->path);
      if (H5DSset_scale(s, bare_dimension_name(unl ? 0 : shape[d]).c_str()) < 0)
        return h5_fail(fn, "H5DSset_scale", f->path);
    }
    Id s(H5Dopen2(f->fid, n.c_str(), H5P_DEFAULT), H5Dclose);
    if (!s.ok() || H5DSattach_scale(did, s, (unsigned)d) < 0)
      return h5_fail(fn, ("H5DSattach_scale of '" + n + "'").c_str(), f->path);
  }
  return DART_OK;
}

// ---- the transfer of the blocks -----------------------------------------------------

// Every unit's interior to or from the dataset: in the file, the box [lo, hi) of the
// array, at step `step` of the leading dimension when step >= 0 (the dataset then has
// one dimension more); in memory, the interior of the block with its ghosts.
dart_ret_t transfer(dart_h5_t f, hid_t did, dart_array_struct *a, int64_t step, bool write,
                    const char *fn) {
  const int nd = a->dc.ndim;
  const int off = step >= 0 ? 1 : 0;
  hsize_t mdims[kMaxDims], mstart[kMaxDims], count[kMaxDims];
  hsize_t fstart[kMaxDims + 1], fcount[kMaxDims + 1];
  if (off) {
    fstart[0] = (hsize_t)step;
    fcount[0] = 1;
  }
  for (int d = 0; d < nd; ++d) {
    mdims[d] = (hsize_t)a->local_shape[d];
    mstart[d] = (hsize_t)a->dc.halo_lo[d];
    count[d] = (hsize_t)(a->hi[d] - a->lo[d]);
    fstart[off + d] = (hsize_t)a->lo[d];
    fcount[off + d] = count[d];
  }
  Id mtype = point_type(a->dtype, a->components, false);
  Id mspace(H5Screate_simple(nd, mdims, nullptr), H5Sclose);
  Id fspace(H5Dget_space(did), H5Sclose);
  Id dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  if (!mtype.ok() || !mspace.ok() || !fspace.ok() || !dxpl.ok())
    return h5_fail(fn, "preparing the transfer", f->path);
  if (H5Sselect_hyperslab(mspace, H5S_SELECT_SET, mstart, nullptr, count, nullptr) < 0 ||
      H5Sselect_hyperslab(fspace, H5S_SELECT_SET, fstart, nullptr, fcount, nullptr) < 0)
    return h5_fail(fn, "H5Sselect_hyperslab", f->path);
  if (H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
    return h5_fail(fn, "H5Pset_dxpl_mpio", f->path);
  const herr_t r = write ? H5Dwrite(did, mtype, mspace, fspace, dxpl, a->local)
                         : H5Dread(did, mtype, mspace, fspace, dxpl, a->local);
  if (r < 0) return h5_fail(fn, write ? "H5Dwrite" : "H5Dread", f->path);
  return DART_OK;
}

dart_ret_t refuse_type(dart_h5_t f, dart_array_t a, const char *fn) {
  return fail(DART_ERR_INVAL, fn,
              "'%s': an HDF5 file of DART cannot hold points of %d x %s (one basic type, or "
              "two floating ones: complex)",
              f->path.c_str(), a->components, basic_type_name(a->dtype).c_str());
}

uint64_t array_key(dart_array_t a) {
  std::string k = std::to_string((long long)a->dtype) + "x" + std::to_string(a->components);
  for (int d = 0; d < a->dc.ndim; ++d) k += "," + std::to_string((long long)a->dc.shape[d]);
  return hash_text(k);
}

uint64_t dims_key(const char *const *dims, int n) {
  std::string k = dims ? "dims" : "default";
  for (int d = 0; dims && d < n; ++d) k += std::string("|") + (dims[d] ? dims[d] : "(null)");
  return hash_text(k);
}

// ---- write, append, read -----------------------------------------------------------

dart_ret_t write_impl(dart_h5_t f, const char *name, dart_array_t a, const char *const *dims,
                      const char *fn) {
  const std::string n = name ? name : "";
  DART_TRY(
      keep(f, begin(f, name, mix(dims_key(dims, a ? a->dc.ndim : 0) ^ (a ? array_key(a) : 0), n),
                    "dataset '" + n + "' of " + (a ? spec_describe(a->spec) : ""), fn, true, a)));
  dart_ret_t local = DART_OK;
  Id ftype = point_type(a->dtype, a->components, true);
  std::vector<std::string> names;
  if (!ftype.ok())
    local = refuse_type(f, a, fn);
  else if (exists(f->fid, n))
    local = fail(DART_ERR_INVAL, fn, "'%s' has a dataset '%s' already", f->path.c_str(), name);
  else
    local = dims_check(f, dims, a->dc.ndim, a->dc.shape.data(), false, &names, fn);
  DART_TRY(settle(f, local, fn));
  hsize_t shape[kMaxDims];
  for (int d = 0; d < a->dc.ndim; ++d) shape[d] = (hsize_t)a->dc.shape[d];
  Id space(H5Screate_simple(a->dc.ndim, shape, nullptr), H5Sclose);
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  Id did(H5Dcreate2(f->fid, name, ftype, space, lcpl, dcpl, H5P_DEFAULT), H5Dclose);
  if (!did.ok()) local = h5_fail(fn, "H5Dcreate2", f->path);
  if (local == DART_OK) local = transfer(f, did, a, -1, true, fn);
  if (local == DART_OK) local = dims_attach(f, did, names, a->dc.shape.data(), false, fn);
  return settle(f, naming_path(local, "cannot write to", f->path, fn), fn);
}

dart_ret_t append_impl(dart_h5_t f, const char *name, dart_array_t a, const char *const *dims,
                       const char *fn) {
  const std::string n = name ? name : "";
  DART_TRY(keep(
      f, begin(f, name, mix(dims_key(dims, a ? a->dc.ndim + 1 : 0) ^ (a ? array_key(a) : 0), n),
               "dataset '" + n + "' of " + (a ? spec_describe(a->spec) : ""), fn, true, a)));
  dart_ret_t local = DART_OK;
  const int nd = a->dc.ndim + 1;
  int64_t shape[kMaxDims + 1];
  shape[0] = 0;
  for (int d = 1; d < nd; ++d) shape[d] = a->dc.shape[d - 1];
  Id ftype = point_type(a->dtype, a->components, true);
  std::vector<std::string> names;
  const bool fresh = !exists(f->fid, n);
  Id did;
  hsize_t steps = 0;
  if (!ftype.ok()) {
    local = refuse_type(f, a, fn);
  } else if (nd > kMaxDims + 1) {
    local = fail(DART_ERR_INVAL, fn, "a time series of %d-dimensional arrays", nd - 1);
  } else if (fresh) {
    local = dims_check(f, dims, nd, shape, true, &names, fn);
  } else {
    // The series exists: the same point type and shape of a step, an unlimited leading
    // dimension.
    did = Id(H5Dopen2(f->fid, name, H5P_DEFAULT), H5Dclose);
    Id space(did.ok() ? H5Dget_space(did) : -1, H5Sclose);
    Id type(did.ok() ? H5Dget_type(did) : -1, H5Tclose);
    hsize_t cur[kMaxDims + 2] = {}, max[kMaxDims + 2] = {};
    const int fnd = space.ok() ? H5Sget_simple_extent_ndims(space) : -1;
    if (!did.ok() || !space.ok() || !type.ok() || fnd < 0 || fnd > kMaxDims + 1) {
      local = fail(DART_ERR_INVAL, fn, "'%s': '%s' is not a dataset DART can append to",
                   f->path.c_str(), name);
      H5Eclear2(H5E_DEFAULT);
    } else {
      H5Sget_simple_extent_dims(space, cur, max);
      bool same = fnd == nd && max[0] == H5S_UNLIMITED && H5Tequal(type, ftype) > 0;
      for (int d = 1; same && d < nd; ++d) same = (int64_t)cur[d] == shape[d];
      steps = cur[0];
      if (!same) {
        std::string have = "(";
        for (int d = 0; d < fnd; ++d)
          have += (max[d] == H5S_UNLIMITED ? "unlimited " : "") + std::to_string(cur[d]) +
                  (d + 1 < fnd ? ", " : "");
        local = fail(DART_ERR_INVAL, fn,
                     "'%s': '%s' (shape %s) is not a time series of this array's steps (%s of "
                     "shape %s)",
                     f->path.c_str(), name, (have + ")").c_str(),
                     numpy_name(a->dtype, a->components).c_str(), spec_describe(a->spec).c_str());
      }
    }
  }
  DART_TRY(settle(f, local, fn));
  if (fresh) {
    hsize_t cur[kMaxDims + 1], max[kMaxDims + 1], chunk[kMaxDims + 1];
    size_t bytes = a->point_size;
    for (int d = 0; d < nd; ++d) {
      cur[d] = (hsize_t)shape[d];
      max[d] = d == 0 ? H5S_UNLIMITED : cur[d];
      chunk[d] = d == 0 ? 1 : cur[d];
      if (d > 0) bytes *= (size_t)cur[d];
    }
    // One chunk per step, halved in its largest dimension below HDF5's 4 GiB limit.
    while (bytes > ((size_t)1 << 30)) {
      int big = 1;
      for (int d = 2; d < nd; ++d)
        if (chunk[d] > chunk[big]) big = d;
      chunk[big] = (chunk[big] + 1) / 2;
      bytes = a->point_size;
      for (int d = 1; d < nd; ++d) bytes *= (size_t)chunk[d];
    }
    Id space(H5Screate_simple(nd, cur, max), H5Sclose);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl, nd, chunk);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    did = Id(H5Dcreate2(f->fid, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
    if (!did.ok()) local = h5_fail(fn, "H5Dcreate2", f->path);
    if (local == DART_OK) local = dims_attach(f, did, names, shape, true, fn);
    DART_TRY(settle(f, naming_path(local, "cannot append to", f->path, fn), fn));
  }
  // One step more, then its data; on a failure the dataset shrinks back, so that it
  // holds its complete steps only.
  hsize_t grown[kMaxDims + 1];
  grown[0] = steps + 1;
  for (int d = 1; d < nd; ++d) grown[d] = (hsize_t)shape[d];
  if (H5Dset_extent(did, grown) < 0) local = h5_fail(fn, "H5Dset_extent", f->path);
  if (local == DART_OK) local = transfer(f, did, a, (int64_t)steps, true, fn);
  local = naming_path(local, "cannot append to", f->path, fn);
  const dart_ret_t rc = agree(f->team, local, 0, [] { return std::string(); }, fn, true);
  if (rc != DART_OK) {
    const std::string why = dart_error_detail();
    grown[0] = steps;
    H5Dset_extent(did, grown);
    H5Eclear2(H5E_DEFAULT);
    fail(rc, fn, "%s", without_fn(why, fn).c_str());
    return settle(f, rc, fn);
  }
  // The scale of the steps grows with the longest series.
  local = DART_OK;
  hid_t found = -1;
  H5DSiterate_scales(
      did, 0, nullptr,
      [](hid_t, unsigned, hid_t scale, void *data) -> herr_t {
        if (H5Iinc_ref(scale) >= 0) *static_cast<hid_t *>(data) = scale;
        return 1;
      },
      &found);
  Id scale(found, H5Dclose);
  if (scale.ok()) {
    Id ss(H5Dget_space(scale), H5Sclose);
    hsize_t len = 0;
    H5Sget_simple_extent_dims(ss, &len, nullptr);
    hsize_t want = steps + 1;
    if (len < want && H5Dset_extent(scale, &want) < 0)
      local = h5_fail(fn, "H5Dset_extent of the steps' dimension", f->path);
  }
  H5Eclear2(H5E_DEFAULT);
  if (local == DART_OK && f->mode == 'a' && H5Fflush(f->fid, H5F_SCOPE_GLOBAL) < 0)
    local = h5_fail(fn, "H5Fflush", f->path);
  return settle(f, naming_path(local, "cannot append to", f->path, fn), fn);
}

// The dataset `name`, its point type and its shape: the checks before a read.
struct Source {
  Id did;
  int ndim = 0;
  int64_t shape[kMaxDims + 1] = {};
  dart_datatype_t dtype = DART_TYPE_UNDEFINED;
  int components = 0;
};

dart_ret_t open_source(dart_h5_t f, const std::string &name, Source *s, const char *fn) {
  if (!is_dataset(f->fid, name)) {
    H5Eclear2(H5E_DEFAULT);
    return fail(DART_ERR_INVAL, fn, "'%s' has no dataset '%s'", f->path.c_str(), name.c_str());
  }
  s->did = Id(H5Dopen2(f->fid, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!s->did.ok()) return h5_fail(fn, "H5Dopen2", f->path);
  Id type(H5Dget_type(s->did), H5Tclose);
  Id space(H5Dget_space(s->did), H5Sclose);
  std::string why;
  if (!dart_type_of(type, &s->dtype, &s->components, &why))
    return fail(DART_ERR_INVAL, fn,
                "'%s': dataset '%s' holds %s, which a DART array cannot hold (integers of 1 "
                "(signed), 2 (signed), 4, 8 bytes, floats of 4, 8, 16 bytes, complex {r, i} "
                "of them)",
                f->path.c_str(), name.c_str(), why.c_str());
  const int nd = H5Sget_simple_extent_ndims(space);
  if (nd < 1 || nd > kMaxDims + 1)
    return fail(DART_ERR_INVAL, fn, "'%s': dataset '%s' has %d dimensions", f->path.c_str(),
                name.c_str(), nd);
  hsize_t cur[kMaxDims + 1];
  H5Sget_simple_extent_dims(space, cur, nullptr);
  s->ndim = nd;
  for (int d = 0; d < nd; ++d) s->shape[d] = (int64_t)cur[d];
  return DART_OK;
}

dart_ret_t read_impl(dart_h5_t f, const char *name, bool stepped, int64_t step,
                     const dart_array_spec_t *spec, dart_array_t *out, const char *fn) {
  if (out == nullptr) return fail(DART_ERR_INVAL, fn, "array is NULL");
  *out = DART_ARRAY_NULL;
  if (spec == nullptr) return fail(DART_ERR_INVAL, fn, "spec is NULL");
  const std::string n = name ? name : "";
  DART_TRY(begin(f, name, mix(hash_text(std::to_string(stepped ? step : -1)), n),
                 "dataset '" + n + "'" + (stepped ? " step " + std::to_string(step) : ""), fn,
                 false));
  dart_ret_t local = spec->refusal != nullptr ? refused(*spec, fn) : DART_OK;
  if (local == DART_OK && spec->team != f->team)
    local = fail(DART_ERR_INVAL, fn, "spec's team (%d) is not the file's (%d)", (int)spec->team,
                 (int)f->team);
  Source src;
  if (local == DART_OK) local = open_source(f, n, &src, fn);
  // The array's rank and shape: the dataset's, or those of one step.
  int nd = src.ndim;
  const int64_t *shape = src.shape;
  int64_t k = step;
  if (local == DART_OK && stepped) {
    if (src.ndim < 2)
      local = fail(DART_ERR_INVAL, fn, "'%s': dataset '%s' has 1 dimension: no steps to read",
                   f->path.c_str(), name);
    else if (k < -src.shape[0] || k >= src.shape[0])
      local = fail(DART_ERR_INVAL, fn, "'%s': dataset '%s' has %lld steps, no step %lld",
                   f->path.c_str(), name, (long long)src.shape[0], (long long)step);
    if (k < 0) k += src.shape[0];
    nd = src.ndim - 1;
    shape = src.shape + 1;
  }
  dart_array_spec_t s = *spec;
  if (local == DART_OK) {
    if (nd > kMaxDims)
      local = fail(DART_ERR_INVAL, fn,
                   "'%s': dataset '%s' has %d dimensions; DART arrays have 1 to "
                   "DART_ARRAY_MAX_DIMS (%d)",
                   f->path.c_str(), name, nd, kMaxDims);
    else if (s.ndim != 0 && s.ndim != nd)
      local = fail(DART_ERR_INVAL, fn, "'%s': dataset '%s' has %d dimensions, not %d",
                   f->path.c_str(), name, nd, s.ndim);
    else if (s.dtype != DART_TYPE_UNDEFINED &&
             numpy_name(s.dtype, s.components) != numpy_name(src.dtype, src.components))
      local = fail(DART_ERR_INVAL, fn, "'%s': dataset '%s' holds %s, not %s (%s)", f->path.c_str(),
                   name, numpy_name(src.dtype, src.components).c_str(),
                   numpy_name(s.dtype, s.components).c_str(), basic_type_name(s.dtype).c_str());
    for (int d = 0; local == DART_OK && d < nd; ++d)
      if (shape[d] == 0)
        local = fail(DART_ERR_INVAL, fn, "'%s': dataset '%s' is empty (extent 0 in dimension %d)",
                     f->path.c_str(), name, d);
  }
  if (local == DART_OK) {
    s.ndim = nd;
    for (int d = 0; d < kMaxDims; ++d) s.shape[d] = d < nd ? shape[d] : 0;
    if (s.dtype == DART_TYPE_UNDEFINED) s.dtype = src.dtype;
    s.components = src.components;
  }
  DART_TRY(agree(f->team, local, 0, [] { return std::string(); }, fn, true));
  dart_array_t a = DART_ARRAY_NULL;
  DART_TRY(array_create(&s, &a, fn, false));  // the read fills every interior
  local = transfer(f, src.did, a, stepped ? k : -1, false, fn);
  const dart_ret_t rc = agree(
      f->team, naming_path(local, "cannot read", f->path, fn), 0, [] { return std::string(); }, fn,
      true);
  if (rc != DART_OK) {
    const std::string why = dart_error_detail();
    dart_array_destroy(&a);
    return fail(rc, fn, "%s", without_fn(why, fn).c_str());
  }
  *out = a;
  return DART_OK;
}

// ---- attributes -----------------------------------------------------------------------

std::string object_name(const char *object) {
  return object == nullptr || *object == '\0' ? "/" : object;
}

dart_ret_t open_object(dart_h5_t f, const std::string &obj, Id *o, const char *fn) {
  if (obj != "/" && !exists(f->fid, obj))
    return fail(DART_ERR_INVAL, fn, "'%s' has no object '%s'", f->path.c_str(), obj.c_str());
  *o = Id(H5Oopen(f->fid, obj.c_str(), H5P_DEFAULT), H5Oclose);
  return o->ok() ? DART_OK : h5_fail(fn, "H5Oopen", f->path);
}

// The attribute `key` of `obj`: its DART type (or DART_H5_STRING) and count.
dart_ret_t attr_open(dart_h5_t f, const std::string &obj, const char *key, Id *attr,
                     dart_datatype_t *type, int64_t *count, bool *vlen, const char *fn) {
  Id o;
  DART_TRY(open_object(f, obj, &o, fn));
  if (H5Aexists(o, key) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return fail(DART_ERR_INVAL, fn, "'%s': '%s' has no attribute '%s'", f->path.c_str(),
                obj.c_str(), key);
  }
  *attr = Id(H5Aopen(o, key, H5P_DEFAULT), H5Aclose);
  if (!attr->ok()) return h5_fail(fn, "H5Aopen", f->path);
  Id t(H5Aget_type(*attr), H5Tclose);
  Id s(H5Aget_space(*attr), H5Sclose);
  const hssize_t np = H5Sget_simple_extent_npoints(s);
  if (H5Tget_class(t) == H5T_STRING) {
    *vlen = H5Tis_variable_str(t) > 0;
    if (np != 1)
      return fail(DART_ERR_INVAL, fn, "'%s': attribute '%s' of '%s' holds %lld strings, not one",
                  f->path.c_str(), key, obj.c_str(), (long long)np);
    *type = DART_H5_STRING;
    if (*vlen) {
      char *text = nullptr;  // (the memory type is the file's: HDF5 converts no cset)
      if (H5Aread(*attr, t, &text) < 0) return h5_fail(fn, "H5Aread", f->path);
      *count = text ? (int64_t)std::strlen(text) : 0;
      H5free_memory(text);
    } else {
      *count = (int64_t)H5Tget_size(t);
    }
    return DART_OK;
  }
  int comps = 0;
  std::string why;
  if (!dart_type_of(t, type, &comps, &why) || comps != 1)
    return fail(DART_ERR_INVAL, fn,
                "'%s': attribute '%s' of '%s' holds %s; DART reads numbers "
                "and strings",
                f->path.c_str(), key, obj.c_str(), comps == 2 ? "complex numbers" : why.c_str());
  *count = (int64_t)np;
  return DART_OK;
}

// Unit 0's check of the closed temporary file of a "w" file: MPI-IO may report success
// for a write the file system took only in part (Open MPI 4.1's ompio under a file size
// limit, issue 34). HDF5 itself opens it (serially) and compares the end of its
// allocated space with the file's size; then the size and fsync (files.h).
dart_ret_t check_complete(dart_h5_t f, const char *fn) {
  Id fid(H5Fopen(f->tmp.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  haddr_t eoa = 0;
  if (!fid.ok() || H5Fget_eoa(fid, &eoa) < 0)
    return fail(DART_ERR_OTHER, fn,
                "cannot save to '%s': the written file is incomplete (%s); the file at '%s' is "
                "as it was",
                f->path.c_str(), h5_text().c_str(), f->path.c_str());
  fid.reset();
  return check_written(f->tmp.c_str(), f->path, (int64_t)eoa, false, fn);
}

const char *type_word(dart_datatype_t t) { return t == DART_H5_STRING ? "a string" : "numbers"; }

}  // namespace

extern "C" {

int dart_h5_available(void) { return 1; }

dart_ret_t dart_h5_open(const char *path, const char *mode, dart_team_t team, dart_h5_t *file) {
  const char *fn = "dart_h5_open";
  if (file == nullptr) return fail(DART_ERR_INVAL, fn, "file is NULL");
  *file = DART_H5_NULL;
  dart_team_unit_t me;
  DART_ARRAY_TRY(dart_team_myid(team, &me), fn);
  quiet_hdf5();
  const std::string p = path ? path : "", m = mode ? mode : "";
  dart_ret_t local = DART_OK;
  if (p.empty())
    local = fail(DART_ERR_INVAL, fn, "path is NULL or empty");
  else if (m != "w" && m != "a" && m != "r")
    local = fail(DART_ERR_INVAL, fn, "'%s': mode '%s' is none of \"w\", \"a\", \"r\"", p.c_str(),
                 m.c_str());
  DART_TRY(agree(
      team, local, hash_text(p + "\n" + m), [&] { return "'" + p + "' mode " + m; }, fn, true));
  // Unit 0 checks what can be checked before the collective open: one message everywhere.
  if (me.id == 0) {
    if (m == "w") {
      local = check_target(p, fn);
    } else {
      struct stat st;
      if (stat(p.c_str(), &st) != 0)
        local = fail(DART_ERR_INVAL, fn, "cannot open '%s': %s", p.c_str(), std::strerror(errno));
      else if (!S_ISREG(st.st_mode))
        local = fail(DART_ERR_INVAL, fn, "cannot open '%s': not a regular file", p.c_str());
      else if (H5Fis_hdf5(p.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        local = fail(DART_ERR_INVAL, fn, "'%s' is not an HDF5 file", p.c_str());
      } else if (m == "a" && access(p.c_str(), W_OK) != 0)
        local = fail(DART_ERR_OTHER, fn, "cannot open '%s' to append: %s", p.c_str(),
                     std::strerror(errno));
    }
  }
  DART_TRY(agree(team, local, 0, [] { return std::string(); }, fn, true));
  auto f = new dart_h5_file;
  f->team = team;
  f->myid = me.id;
  f->mode = m[0];
  f->path = p;
  MPI_Comm comm = MPI_COMM_NULL;
  if (dart_ret_t rc = dart_team_comm(team, &comm); rc != DART_OK) {
    delete f;
    return rethrow(rc, fn);
  }
  char tmp[4096] = "";
  if (m == "w") {
    if (me.id == 0) std::snprintf(tmp, sizeof tmp, "%s", temporary_name(p).c_str());
    if (dart_ret_t rc = dart_bcast(tmp, sizeof tmp, DART_TYPE_BYTE, dart_team_unit_t{0}, team);
        rc != DART_OK) {
      delete f;
      return rethrow(rc, fn);
    }
    f->tmp = tmp;
  }
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  local = DART_OK;
  // Metadata written and read collectively: every unit takes part in every metadata
  // write, so that a write the file system refuses (EFBIG, ENOSPC) fails on every unit
  // instead of on unit 0 alone, which would leave the others in HDF5's next collective.
  if (!fapl.ok() || !fcpl.ok() || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 ||
      H5Pset_coll_metadata_write(fapl, true) < 0 || H5Pset_all_coll_metadata_ops(fapl, true) < 0)
    local = h5_fail(fn, "H5Pset_fapl_mpio", p);
  if (local == DART_OK) {
    // netCDF-4 tracks the creation order of links and attributes; its readers expect it.
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    if (m == "w")
      f->fid = H5Fcreate(tmp, H5F_ACC_EXCL, fcpl, fapl);
    else
      f->fid = H5Fopen(p.c_str(), m == "a" ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    if (f->fid < 0)
      local = fail(DART_ERR_OTHER, fn, "cannot open '%s': %s", p.c_str(), h5_text().c_str());
  }
  // The open is collective and reports one outcome; agree anyway. A unit that opened a
  // file the others could not keeps the handle (closing it would wait for them).
  if (dart_ret_t rc = agree(
          team, local, 0, [] { return std::string(); }, fn, true);
      rc != DART_OK) {
    if (me.id == 0 && m == "w") unlink(tmp);
    delete f;
    return rc;
  }
  *file = f;
  return DART_OK;
}

dart_ret_t dart_h5_close(dart_h5_t *file) {
  const char *fn = "dart_h5_close";
  if (file == nullptr || *file == DART_H5_NULL)
    return fail(DART_ERR_INVAL, fn, "file is NULL or DART_H5_NULL");
  dart_h5_t f = *file;
  *file = DART_H5_NULL;
  // The flush first, and its outcome agreed: HDF5 1.10's H5Fclose frees the file when
  // its flush fails (EFBIG, ENOSPC) but keeps its identifier, and the library's own
  // cleanup at MPI_Finalize then closes the freed file again (a crash). A file whose
  // flush failed on any unit is therefore left open on every unit; that cleanup closes
  // it once, collectively. (Its temporary file is removed now.)
  dart_ret_t local = DART_OK;
  if (f->mode != 'r' && H5Fflush(f->fid, H5F_SCOPE_GLOBAL) < 0)
    local = h5_fail(fn, "H5Fflush", f->path);
  local = naming_path(local, "cannot write to", f->path, fn);
  dart_ret_t rc = agree(f->team, local, 0, [] { return std::string(); }, fn, true);
  if (rc != DART_OK) {
    if (f->mode == 'w' && f->myid == 0) unlink(f->tmp.c_str());
    delete f;
    return rc;
  }
  if (H5Fclose(f->fid) < 0) local = h5_fail(fn, "H5Fclose", f->path);
  if (f->mode == 'w') {
    if (local == DART_OK && f->failed != DART_OK)
      local = fail(f->failed, fn,
                   "'%s' is not written (it is as it was): an earlier call "
                   "failed: %s",
                   f->path.c_str(), f->failure.c_str());
    if (local == DART_OK && f->myid == 0) local = check_complete(f, fn);
    rc = commit_temporary(f->team, f->myid == 0, local, f->tmp.c_str(), f->path, fn);
  } else {
    rc = agree(f->team, local, 0, [] { return std::string(); }, fn, true);
  }
  delete f;
  return rc;
}

dart_ret_t dart_array_write_h5(dart_h5_t file, const char *name, dart_array_t array) {
  return write_impl(file, name, array, nullptr, "dart_array_write_h5");
}

dart_ret_t dart_array_write_h5_dims(dart_h5_t file, const char *name, dart_array_t array,
                                    const char *const *dims) {
  return write_impl(file, name, array, dims, "dart_array_write_h5");
}

dart_ret_t dart_array_append_h5(dart_h5_t file, const char *name, dart_array_t array) {
  return append_impl(file, name, array, nullptr, "dart_array_append_h5");
}

dart_ret_t dart_array_append_h5_dims(dart_h5_t file, const char *name, dart_array_t array,
                                     const char *const *dims) {
  return append_impl(file, name, array, dims, "dart_array_append_h5");
}

dart_ret_t dart_array_read_h5(dart_h5_t file, const char *name, const dart_array_spec_t *spec,
                              dart_array_t *array) {
  return read_impl(file, name, false, 0, spec, array, "dart_array_read_h5");
}

dart_ret_t dart_array_read_h5_step(dart_h5_t file, const char *name, int64_t step,
                                   const dart_array_spec_t *spec, dart_array_t *array) {
  return read_impl(file, name, true, step, spec, array, "dart_array_read_h5_step");
}

dart_ret_t dart_h5_dataset_info(dart_h5_t file, const char *name, int32_t *ndim, int64_t *shape,
                                dart_datatype_t *dtype, int32_t *components) {
  const char *fn = "dart_h5_dataset_info";
  const std::string n = name ? name : "";
  DART_TRY(begin(file, name, hash_text(n), "dataset '" + n + "'", fn, false));
  Source src;
  const dart_ret_t local = open_source(file, n, &src, fn);
  DART_TRY(agree(file->team, local, 0, [] { return std::string(); }, fn, true));
  if (ndim) *ndim = src.ndim;
  for (int d = 0; shape && d < src.ndim; ++d) shape[d] = src.shape[d];
  if (dtype) *dtype = src.dtype;
  if (components) *components = src.components;
  return DART_OK;
}

dart_ret_t dart_h5_set_attr(dart_h5_t file, const char *object, const char *key,
                            dart_datatype_t type, int64_t count, const void *value) {
  const char *fn = "dart_h5_set_attr";
  const std::string obj = object_name(object);
  const std::string k = key ? key : "";
  // The value is part of the key: parallel HDF5 needs the same on every unit.
  std::string what = obj + "|" + k + "|" + std::to_string((long long)type);
  const bool text = type == DART_H5_STRING;
  const size_t esize = text ? 1 : basic_type_size(type);
  if (value && esize != 0) {
    const size_t bytes = text ? std::strlen((const char *)value)
                              : esize * (size_t)(count > 0 ? count : 0);
    what += "|" + std::string((const char *)value, bytes);
  }
  DART_TRY(keep(
      file, begin(file, key, hash_text(what), "attribute '" + k + "' of '" + obj + "'", fn, true)));
  dart_ret_t local = DART_OK;
  if (value == nullptr)
    local = fail(DART_ERR_INVAL, fn, "value is NULL");
  else if (esize == 0)
    local = fail(DART_ERR_INVAL, fn, "type %s is no basic type and not DART_H5_STRING",
                 basic_type_name(type).c_str());
  else if (!text && count < 1)
    local = fail(DART_ERR_INVAL, fn, "count %lld < 1", (long long)count);
  Id o;
  if (local == DART_OK) local = open_object(file, obj, &o, fn);
  DART_TRY(settle(file, local, fn));
  if (H5Aexists(o, key) > 0 && H5Adelete(o, key) < 0) local = h5_fail(fn, "H5Adelete", file->path);
  H5Eclear2(H5E_DEFAULT);
  Id ftype, mtype, space;
  if (text) {
    // A variable-length UTF-8 string, as h5py writes a str (read back as str).
    ftype = Id(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(ftype, H5T_VARIABLE);
    H5Tset_cset(ftype, H5T_CSET_UTF8);
    space = Id(H5Screate(H5S_SCALAR), H5Sclose);
  } else {
    ftype = Id(element_type(type, true), H5Tclose);
    mtype = Id(element_type(type, false), H5Tclose);
    hsize_t n = (hsize_t)count;
    space = Id(count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  }
  if (local == DART_OK) {
    Id attr(H5Acreate2(o, key, ftype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char *p = (const char *)value;
    if (!attr.ok() ||
        H5Awrite(attr, text ? ftype.id : mtype.id, text ? (const void *)&p : value) < 0)
      local = h5_fail(fn, ("attribute '" + k + "' of '" + obj + "'").c_str(), file->path);
  }
  return settle(file, local, fn);
}

dart_ret_t dart_h5_attr_info(dart_h5_t file, const char *object, const char *key,
                             dart_datatype_t *type, int64_t *count) {
  const char *fn = "dart_h5_attr_info";
  const std::string obj = object_name(object), k = key ? key : "";
  DART_TRY(begin(file, key, hash_text(obj + "|" + k), "attribute '" + k + "'", fn, false));
  Id attr;
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  int64_t n = 0;
  bool vlen = false;
  const dart_ret_t local = attr_open(file, obj, key, &attr, &t, &n, &vlen, fn);
  DART_TRY(agree(file->team, local, 0, [] { return std::string(); }, fn, true));
  if (type) *type = t;
  if (count) *count = n;
  return DART_OK;
}

dart_ret_t dart_h5_get_attr(dart_h5_t file, const char *object, const char *key,
                            dart_datatype_t type, int64_t capacity, void *value, int64_t *count) {
  const char *fn = "dart_h5_get_attr";
  const std::string obj = object_name(object), k = key ? key : "";
  DART_TRY(begin(file, key, hash_text(obj + "|" + k + "|" + std::to_string((long long)type)),
                 "attribute '" + k + "'", fn, false));
  Id attr;
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  int64_t n = 0;
  bool vlen = false;
  dart_ret_t local = attr_open(file, obj, key, &attr, &t, &n, &vlen, fn);
  const bool want_text = type == DART_H5_STRING;
  if (local == DART_OK && value == nullptr) local = fail(DART_ERR_INVAL, fn, "value is NULL");
  if (local == DART_OK && !want_text && basic_type_size(type) == 0)
    local = fail(DART_ERR_INVAL, fn, "type %s is no basic type and not DART_H5_STRING",
                 basic_type_name(type).c_str());
  if (local == DART_OK && want_text != (t == DART_H5_STRING))
    local = fail(DART_ERR_INVAL, fn, "'%s': attribute '%s' of '%s' is %s, not %s",
                 file->path.c_str(), key, obj.c_str(), type_word(t), type_word(type));
  if (local == DART_OK && (want_text ? n + 1 > capacity : n > capacity))
    local = fail(DART_ERR_INVAL, fn,
                 "'%s': attribute '%s' of '%s' holds %lld %s, more than the capacity %lld",
                 file->path.c_str(), key, obj.c_str(), (long long)(want_text ? n + 1 : n),
                 want_text ? "bytes with its NUL" : "values", (long long)capacity);
  if (local == DART_OK) {
    if (want_text) {
      Id mt(H5Aget_type(attr), H5Tclose);  // (HDF5 converts no cset)
      char *out = (char *)value;
      if (vlen) {
        char *text = nullptr;
        if (H5Aread(attr, mt, &text) < 0)
          local = h5_fail(fn, "H5Aread", file->path);
        else
          std::memcpy(out, text ? text : "", (size_t)n);
        H5free_memory(text);
      } else {
        H5Tset_size(mt, (size_t)n + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        if (H5Aread(attr, mt, out) < 0) local = h5_fail(fn, "H5Aread", file->path);
      }
      if (local == DART_OK) {
        out[n] = '\0';
        n = (int64_t)std::strlen(out);
      }
    } else {
      Id mt(element_type(type, false), H5Tclose);
      if (H5Aread(attr, mt, value) < 0) local = h5_fail(fn, "H5Aread", file->path);
    }
  }
  DART_TRY(agree(file->team, local, 0, [] { return std::string(); }, fn, true));
  if (count) *count = n;
  return DART_OK;
}

dart_ret_t dart_h5_list(dart_h5_t file, char *buf, int64_t capacity) {
  const char *fn = "dart_h5_list";
  DART_TRY(begin(file, "/", 0, "", fn, false));
  std::string names;
  struct Walk {
    hid_t fid;
    std::string *out;
  } w{file->fid, &names};
  H5Literate(
      file->fid, H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t g, const char *name, const H5L_info_t *, void *data) -> herr_t {
        auto *w = static_cast<Walk *>(data);
        H5O_info_t info;
        if (H5Oget_info_by_name(g, name, &info, H5P_DEFAULT) < 0 || info.type != H5O_TYPE_DATASET)
          return 0;
        // A bare netCDF dimension is no variable.
        Id d(H5Dopen2(g, name, H5P_DEFAULT), H5Dclose);
        char text[128] = "";
        if (d.ok() && H5DSis_scale(d) > 0 && H5DSget_scale_name(d, text, sizeof text) > 0 &&
            std::strncmp(text, "This is a netCDF dimension but not a netCDF variable", 52) == 0)
          return 0;
        *w->out += std::string(name) + "\n";
        return 0;
      },
      &w);
  H5Eclear2(H5E_DEFAULT);
  if (!names.empty()) names.pop_back();
  dart_ret_t local = DART_OK;
  if (buf == nullptr || (int64_t)names.size() + 1 > capacity)
    local = fail(DART_ERR_INVAL, fn, "the names need %zu bytes, capacity is %lld", names.size() + 1,
                 (long long)capacity);
  else
    std::memcpy(buf, names.c_str(), names.size() + 1);
  return agree(file->team, local, 0, [] { return std::string(); }, fn, true);
}

}  // extern "C"

#endif  // DART_HAVE_HDF5
