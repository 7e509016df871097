/* SPDX-License-Identifier: BSD-3-Clause */
// The collective-file part shared by the arrays' file formats (io.cc: .npy, h5.cc: HDF5):
// the checks of a target path, the temporary file next to it and its all-or-nothing
// replacement of the target, the naming of a path in a failure's message.
#ifndef DART_ARRAY_FILES_H
#define DART_ARRAY_FILES_H

#include "array.h"

#include <cstdint>
#include <string>

namespace dart {
namespace array {

// FNV-1a of a text: the key of agree() for a path every unit must name.
uint64_t hash_text(const std::string &s);
// The folder of a path ("." for a bare name).
std::string folder_of(const std::string &path);
// A fresh temporary name in path's folder (short whatever the path's length: Open MPI
// 4.1's ompio names files of its own after it in fixed buffers; docs/mpi-notes.md).
std::string temporary_name(const std::string &path);
// The failure `rc` of this unit again, its message led by "<lead> '<path>': " unless it
// names the path already (an MPI-IO or HDF5 error names neither).
dart_ret_t naming_path(dart_ret_t rc, const char *lead, const std::string &path, const char *fn);
// Unit 0's checks before a file is created at `path`: its folder exists and is writable,
// and path is not a directory (the rename would fail after the write).
dart_ret_t check_target(const std::string &path, const char *fn);
// Unit 0's check of the closed temporary file `tmp` of a save to `path`: it holds
// `bytes` bytes (at least, unless exact), and fsync has put them on the disk. Some MPI-IO
// libraries report success for a write the file system took only in part (Open MPI
// 4.1's ompio under a file size limit, issue 34); the file itself tells.
dart_ret_t check_written(const char *tmp, const std::string &path, int64_t bytes, bool exact,
                         const char *fn);
// Collective: the end of a write through the temporary file `tmp` (closed on every
// unit). `local` is this unit's outcome; if every unit succeeded, `root` renames tmp to
// path, else it removes tmp and path stays as it was. Every unit returns the same code
// and message.
dart_ret_t commit_temporary(dart_team_t team, bool root, dart_ret_t local, const char *tmp,
                            const std::string &path, const char *fn);

}  // namespace array
}  // namespace dart

#endif  // DART_ARRAY_FILES_H
