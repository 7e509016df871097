! SPDX-License-Identifier: BSD-3-Clause
! dart_buf_int32: the buffer wrappers of module `dart` for integer(int32) data (private to the
! library; the public module `dart` re-exports the generics). The code is the shared
! template dart_buf_template.inc; see there.
module dart_buf_int32
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use dart_c_binding
  use dart_f_base
  implicit none
  private

! integer(int32): the element kind is the one dart_tables.h gives DART_TYPE_INT.
#define BUF_TYPE integer(DARTF_KIND_INT)
#define BUF_BASE DART_TYPE_INT
#define BUF_PARTS 1
#define BUF_LABEL 'integer(int32)'
#define BUF_INTEGER
#include "dart_buf_template.inc"

end module dart_buf_int32
