! SPDX-License-Identifier: BSD-3-Clause
! dart_cstyle: the C-style specifics of module `dart` (private to the library; `dart`
! re-exports the generics): dart_put(gptr, c_loc(x), nelem, src_type, dst_type) and the
! like, exactly as in C, with nelem of kind c_size_t or default integer (int32).
!
! The code is written once, in dart_cstyle_template.inc, and compiled once per kind of
! nelem (modules dart_cstyle_c8 and dart_cstyle_c4); module dart_cstyle gathers both.

module dart_cstyle_c8
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32
  use dart_c_binding
  use dart_f_base
  implicit none
  private

#define CS_NELEM integer(c_size_t)
#define CS_SIZE_T
#include "dart_cstyle_template.inc"
#undef CS_NELEM
#undef CS_SIZE_T

end module dart_cstyle_c8

module dart_cstyle_c4
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32
  use dart_c_binding
  use dart_f_base
  implicit none
  private

#define CS_NELEM integer(int32)
#include "dart_cstyle_template.inc"
#undef CS_NELEM

end module dart_cstyle_c4

module dart_cstyle
  use dart_cstyle_c8
  use dart_cstyle_c4
  implicit none
  private

  public :: dart_team_memregister, dart_team_memregister_aligned
  public :: dart_put, dart_get, dart_put_blocking, dart_get_blocking
  public :: dart_put_handle, dart_get_handle
  public :: dart_accumulate, dart_accumulate_blocking_local
  public :: dart_bcast, dart_scatter, dart_gather, dart_allgather, dart_allgatherv
  public :: dart_reduce, dart_allreduce, dart_alltoall
  public :: dart_send, dart_recv, dart_sendrecv
end module dart_cstyle
