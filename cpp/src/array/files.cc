// SPDX-License-Identifier: BSD-3-Clause
// The collective-file part of the arrays' file formats (files.h): target checks, the
// temporary file and its all-or-nothing rename.
#include "files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dart {
namespace array {

uint64_t hash_text(const std::string &s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// The folder of a path ("." for a bare name) and the temporary name next to it.
std::string folder_of(const std::string &path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A short name, whatever the path's: Open MPI 4.1's ompio asks its shared-file-pointer
// components about every file it opens, and they name files of their own after the
// file's name in fixed buffers ("sm" printed "unable to open file for mmap" for a
// temporary name that carried a long target's base name; "lockedfile" overflows a
// 256-byte buffer for a whole path of ~240 characters, docs/mpi-notes.md). The temporary
// name no longer carries the target's base name (issue 34).
std::string temporary_name(const std::string &path) {
  static unsigned counter = 0;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  return dir + ".dart-tmp-" + std::to_string((long)getpid()) + "-" + std::to_string(++counter);
}

// The failure `rc` of this unit again, its message led by "<lead> '<path>': " unless it
// names the path already (an MPI-IO error names neither).
dart_ret_t naming_path(dart_ret_t rc, const char *lead, const std::string &path, const char *fn) {
  if (rc == DART_OK) return rc;
  const std::string text = without_fn(dart_error_detail(), fn);
  if (text.find("'" + path + "'") != std::string::npos) return rc;
  const int errnum = last_errno();
  return with_errno(fail(rc, fn, "%s '%s': %s", lead, path.c_str(), text.c_str()), errnum);
}

// Unit 0's checks before anything is created: the folder can take the file, and path is
// not a directory (the rename would fail after the write).
dart_ret_t check_target(const std::string &path, const char *fn) {
  const std::string dir = folder_of(path);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return with_errno(
        fail(DART_ERR_INVAL, fn, "cannot save to '%s': the folder '%s' does not exist",
             path.c_str(), dir.c_str()),
        ENOENT);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    const int e = errno;
    return with_errno(
        fail(DART_ERR_OTHER, fn, "cannot save to '%s': the folder '%s' is not writable (%s)",
             path.c_str(), dir.c_str(), std::strerror(e)),
        e);
  }
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return with_errno(
        fail(DART_ERR_INVAL, fn, "cannot save to '%s': it is a directory", path.c_str()), EISDIR);
  return DART_OK;
}

// Unit 0's check of the closed temporary file `tmp` of a save to `path`: it holds
// `bytes` bytes, and fsync has put them on the disk. Some MPI-IO libraries report success
// for a write the file system took only in part (Open MPI 4.1's ompio under a file size
// limit, issue 34); the file itself tells. A short file's cause comes from the file
// system: one byte written at the file's last offset fails with its errno (EFBIG,
// ENOSPC, EDQUOT) and is harmless, the file being removed.
dart_ret_t check_written(const char *tmp, const std::string &path, int64_t bytes, bool exact,
                         const char *fn) {
  const int fd = open(tmp, O_RDWR);
  if (fd < 0) {
    const int e = errno;
    return with_errno(fail(DART_ERR_OTHER, fn,
                           "cannot save to '%s': the written file '%s' cannot be "
                           "opened again: %s",
                           path.c_str(), tmp, std::strerror(e)),
                      e);
  }
  dart_ret_t rc = DART_OK;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    rc = with_errno(fail(DART_ERR_OTHER, fn, "cannot save to '%s': fstat of '%s': %s", path.c_str(),
                         tmp, std::strerror(e)),
                    e);
  } else if (exact ? (int64_t)st.st_size != bytes : (int64_t)st.st_size < bytes) {
    const char zero = 0;
    errno = 0;
    const bool refused = st.st_size < bytes && pwrite(fd, &zero, 1, (off_t)(bytes - 1)) < 0;
    const int e = refused ? errno : EIO;
    rc = with_errno(
        fail(DART_ERR_OTHER, fn,
             "cannot save to '%s': the file system took %lld of its %lld "
             "bytes (%s); the file at '%s' is as it was",
             path.c_str(), (long long)st.st_size, (long long)bytes,
             refused ? std::strerror(e) : "no error from the MPI-IO library", path.c_str()),
        e);
  } else if (fsync(fd) != 0) {
    const int e = errno;
    rc = with_errno(fail(DART_ERR_OTHER, fn,
                         "cannot save to '%s': fsync: %s; the file at '%s' is as it "
                         "was",
                         path.c_str(), std::strerror(e), path.c_str()),
                    e);
  }
  if (close(fd) != 0 && rc == DART_OK) {
    const int e = errno;
    rc = with_errno(
        fail(DART_ERR_OTHER, fn, "cannot save to '%s': close: %s", path.c_str(), std::strerror(e)),
        e);
  }
  return rc;
}

dart_ret_t commit_temporary(dart_team_t team, bool root, dart_ret_t local, const char *tmp,
                            const std::string &path, const char *fn) {
  dart_ret_t rc = agree(team, local, 0, [] { return std::string(); }, fn, true);
  // The root renames (or removes) the temporary file; everybody returns its outcome.
  local = DART_OK;
  if (root) {
    if (rc != DART_OK) {
      unlink(tmp);
    } else if (std::rename(tmp, path.c_str()) != 0) {
      // The folder is not synced after the rename: a crash leaves the old or the new
      // file at path, each complete (the new one was synced before), which is all the
      // guarantee asks; a sync of the folder would add a journal commit to every save.
      const int e = errno;
      local = with_errno(fail(DART_ERR_OTHER, fn, "cannot rename '%s' to '%s': %s", tmp,
                              path.c_str(), std::strerror(e)),
                         e);
      unlink(tmp);
    }
  }
  const dart_ret_t rrc = agree(team, local, 0, [] { return std::string(); }, fn, true);
  return rc != DART_OK ? rc : rrc;
}

}  // namespace array
}  // namespace dart
