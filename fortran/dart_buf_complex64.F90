! SPDX-License-Identifier: BSD-3-Clause
! dart_buf_complex64: the buffer wrappers of module `dart` for complex(real64) data (private to the
! library; the public module `dart` re-exports the generics). The code is the shared
! template dart_buf_template.inc; see there.
module dart_buf_complex64
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use dart_c_binding
  use dart_f_base
  implicit none
  private

! complex(real64): the element kind is the one dart_tables.h gives DART_TYPE_DOUBLE.
#define BUF_TYPE complex(DARTF_KIND_DOUBLE)
#define BUF_BASE DART_TYPE_DOUBLE
#define BUF_PARTS 2
#define BUF_LABEL 'complex(real64)'
#define BUF_COMPLEX
#include "dart_buf_template.inc"

end module dart_buf_complex64
