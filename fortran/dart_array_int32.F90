! SPDX-License-Identifier: BSD-3-Clause
! dart_array_int32: the distributed-array wrappers of module `dart` for integer(int32) data
! (private to the library; the public module `dart` re-exports the generics). The code
! is the shared template dart_array_template.inc; see there.
module dart_array_int32
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use dart_c_binding
  use dart_arrays, only: dartf_array_view, dartf_array_region, dartf_array_whole, &
                         dartf_array_bounds, dartf_array_reduce
  implicit none
  private

! integer(int32): the kind dart_tables.h gives DART_TYPE_INT.
#define BUF_TYPE integer(DARTF_KIND_INT)
#define BUF_PARTS 1
#define BUF_LABEL 'integer(int32)'
#define BUF_INTEGER
#include "dart_array_template.inc"

end module dart_array_int32
