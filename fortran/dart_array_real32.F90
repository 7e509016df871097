! SPDX-License-Identifier: BSD-3-Clause
! dart_array_real32: the distributed-array wrappers of module `dart` for real(real32) data
! (private to the library; the public module `dart` re-exports the generics). The code
! is the shared template dart_array_template.inc; see there.
module dart_array_real32
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use dart_c_binding
  use dart_arrays, only: dartf_array_view, dartf_array_region, dartf_array_whole, &
                         dartf_array_bounds, dartf_array_reduce
  implicit none
  private

! real(real32): the kind dart_tables.h gives DART_TYPE_FLOAT.
#define BUF_TYPE real(DARTF_KIND_FLOAT)
#define BUF_PARTS 1
#define BUF_LABEL 'real(real32)'

#define BUF_SUM
#include "dart_array_template.inc"

end module dart_array_real32
