! SPDX-License-Identifier: BSD-3-Clause
! dart-test: UNITS 1 2 4 UPN none 1 NO_FAKE_HOSTS
! (CI time: the Python scenario test_array_numpy.py adds 3 units at DART_UNITS_PER_NODE=2)
! ftest_array_reduce: the reductions of distributed arrays in Fortran (issue 37):
! dart_array_reduce (sum, min, max), dart_array_norm (1, 2, inf) and dart_array_dot, generic
! over the element types of module `dart`, against the documented order computed here
! (every unit's block in index order from its first value, then the units in order),
! bitwise; ghosts filled with poison (a ghost read shows); a NaN; the result types
! (integer(int64) sums of every integer kind, real32 sums of real32, complex sums and
! dot products = sum(conj(a) * b)); refusals with stat on every unit: an operation that is
! no reduction, min of complex numbers, a result of the wrong type, a norm kind, a dot of
! different distributions, a bad argument on one unit only.
module ftest_array_reduce_support
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
  use dart
  use ftest
  implicit none

  ! The per-type arithmetic of reduce_type.inc, one specific per element type.
  interface val
    module procedure val_i1, val_i2, val_i4, val_i8, val_r4, val_r8, val_c4, val_c8
  end interface
  interface poison
    module procedure poison_i1, poison_i2, poison_i4, poison_i8, poison_r4, poison_r8, &
                     poison_c4, poison_c8
  end interface
  interface toacc
    module procedure toacc_i1, toacc_i2, toacc_i4, toacc_i8, toacc_r4, toacc_r8, toacc_c4, &
                     toacc_c8
  end interface
  interface fromacc
    module procedure fromacc_i8, fromacc_r4, fromacc_r8, fromacc_c4, fromacc_c8
  end interface
  interface mag
    module procedure mag_i1, mag_i2, mag_i4, mag_i8, mag_r4, mag_r8, mag_c4, mag_c8
  end interface
  interface sq
    module procedure sq_i1, sq_i2, sq_i4, sq_i8, sq_r4, sq_r8, sq_c4, sq_c8
  end interface
  interface dotp
    module procedure dotp_i1, dotp_i2, dotp_i4, dotp_i8, dotp_r4, dotp_r8, dotp_c4, dotp_c8
  end interface
  interface same
    module procedure same_i8, same_r4, same_r8, same_c4, same_c8
  end interface

contains

  ! ---- values: small integers (no overflow in the reference), k / 7 for the reals ------
  pure integer function ival(lin)
    integer, intent(in) :: lin
    ival = mod(lin * 37, 201) - 100
  end function ival
  elemental function val_i1(lin, mold) result(v)
    integer, intent(in) :: lin
    integer(int8), intent(in) :: mold
    integer(int8) :: v
    v = int(ival(lin), kind(mold))
  end function val_i1
  elemental function val_i2(lin, mold) result(v)
    integer, intent(in) :: lin
    integer(int16), intent(in) :: mold
    integer(int16) :: v
    v = int(ival(lin), kind(mold))
  end function val_i2
  elemental function val_i4(lin, mold) result(v)
    integer, intent(in) :: lin
    integer(int32), intent(in) :: mold
    integer(int32) :: v
    v = int(ival(lin), kind(mold))
  end function val_i4
  elemental function val_i8(lin, mold) result(v)
    integer, intent(in) :: lin
    integer(int64), intent(in) :: mold
    integer(int64) :: v
    v = int(ival(lin), kind(mold)) * 1000000007_int64
  end function val_i8
  elemental function val_r4(lin, mold) result(v)
    integer, intent(in) :: lin
    real(real32), intent(in) :: mold
    real(real32) :: v
    v = real(mod(lin * 31, 1000) - 500, kind(mold)) / 7
  end function val_r4
  elemental function val_r8(lin, mold) result(v)
    integer, intent(in) :: lin
    real(real64), intent(in) :: mold
    real(real64) :: v
    v = real(mod(lin * 31, 1000) - 500, kind(mold)) / 7
  end function val_r8
  elemental function val_c4(lin, mold) result(v)
    integer, intent(in) :: lin
    complex(real32), intent(in) :: mold
    complex(real32) :: v
    v = cmplx(real(mod(lin * 31, 1000) - 500, real32) / 7, &
              real(mod(lin * 17 + 5, 1000) - 500, real32) / 3, kind(mold))
  end function val_c4
  elemental function val_c8(lin, mold) result(v)
    integer, intent(in) :: lin
    complex(real64), intent(in) :: mold
    complex(real64) :: v
    v = cmplx(real(mod(lin * 31, 1000) - 500, real64) / 7, &
              real(mod(lin * 17 + 5, 1000) - 500, real64) / 3, kind(mold))
  end function val_c8

  ! ---- poison for the ghosts -------------------------------------------------------------
  integer(int8) function poison_i1(mold)
    integer(int8), intent(in) :: mold
    poison_i1 = huge(mold)
  end function poison_i1
  integer(int16) function poison_i2(mold)
    integer(int16), intent(in) :: mold
    poison_i2 = huge(mold)
  end function poison_i2
  integer(int32) function poison_i4(mold)
    integer(int32), intent(in) :: mold
    poison_i4 = huge(mold)
  end function poison_i4
  integer(int64) function poison_i8(mold)
    integer(int64), intent(in) :: mold
    poison_i8 = huge(mold)
  end function poison_i8
  real(real32) function poison_r4(mold)
    real(real32), intent(in) :: mold
    poison_r4 = ieee_value(mold, ieee_quiet_nan)
  end function poison_r4
  real(real64) function poison_r8(mold)
    real(real64), intent(in) :: mold
    poison_r8 = ieee_value(mold, ieee_quiet_nan)
  end function poison_r8
  complex(real32) function poison_c4(mold)
    complex(real32), intent(in) :: mold
    poison_c4 = cmplx(ieee_value(0.0_real32, ieee_quiet_nan), 0, kind(mold))
  end function poison_c4
  complex(real64) function poison_c8(mold)
    complex(real64), intent(in) :: mold
    poison_c8 = cmplx(ieee_value(0.0_real64, ieee_quiet_nan), 0, kind(mold))
  end function poison_c8

  ! ---- the accumulator: integer(int64), real(real64), complex(real64) --------------------
  integer(int64) function toacc_i1(x)
    integer(int8), intent(in) :: x
    toacc_i1 = int(x, int64)
  end function toacc_i1
  integer(int64) function toacc_i2(x)
    integer(int16), intent(in) :: x
    toacc_i2 = int(x, int64)
  end function toacc_i2
  integer(int64) function toacc_i4(x)
    integer(int32), intent(in) :: x
    toacc_i4 = int(x, int64)
  end function toacc_i4
  integer(int64) function toacc_i8(x)
    integer(int64), intent(in) :: x
    toacc_i8 = x
  end function toacc_i8
  real(real64) function toacc_r4(x)
    real(real32), intent(in) :: x
    toacc_r4 = real(x, real64)
  end function toacc_r4
  real(real64) function toacc_r8(x)
    real(real64), intent(in) :: x
    toacc_r8 = x
  end function toacc_r8
  complex(real64) function toacc_c4(x)
    complex(real32), intent(in) :: x
    toacc_c4 = cmplx(x, kind=real64)
  end function toacc_c4
  complex(real64) function toacc_c8(x)
    complex(real64), intent(in) :: x
    toacc_c8 = x
  end function toacc_c8

  integer(int64) function fromacc_i8(a, mold)
    integer(int64), intent(in) :: a, mold
    fromacc_i8 = a + 0 * mold
  end function fromacc_i8
  real(real32) function fromacc_r4(a, mold)
    real(real64), intent(in) :: a
    real(real32), intent(in) :: mold
    fromacc_r4 = real(a, kind(mold))
  end function fromacc_r4
  real(real64) function fromacc_r8(a, mold)
    real(real64), intent(in) :: a, mold
    fromacc_r8 = real(a, kind(mold))
  end function fromacc_r8
  complex(real32) function fromacc_c4(a, mold)
    complex(real64), intent(in) :: a
    complex(real32), intent(in) :: mold
    fromacc_c4 = cmplx(a, kind=kind(mold))
  end function fromacc_c4
  complex(real64) function fromacc_c8(a, mold)
    complex(real64), intent(in) :: a, mold
    fromacc_c8 = cmplx(a, kind=kind(mold))
  end function fromacc_c8

  ! ---- magnitudes and squares in double (|z| = hypot(re, im)) ----------------------------
  real(real64) function mag_i1(x)
    integer(int8), intent(in) :: x
    mag_i1 = abs(real(x, real64))
  end function mag_i1
  real(real64) function mag_i2(x)
    integer(int16), intent(in) :: x
    mag_i2 = abs(real(x, real64))
  end function mag_i2
  real(real64) function mag_i4(x)
    integer(int32), intent(in) :: x
    mag_i4 = abs(real(x, real64))
  end function mag_i4
  real(real64) function mag_i8(x)
    integer(int64), intent(in) :: x
    mag_i8 = abs(real(x, real64))
  end function mag_i8
  real(real64) function mag_r4(x)
    real(real32), intent(in) :: x
    mag_r4 = abs(real(x, real64))
  end function mag_r4
  real(real64) function mag_r8(x)
    real(real64), intent(in) :: x
    mag_r8 = abs(x)
  end function mag_r8
  real(real64) function mag_c4(x)
    complex(real32), intent(in) :: x
    mag_c4 = hypot(real(real(x), real64), real(aimag(x), real64))
  end function mag_c4
  real(real64) function mag_c8(x)
    complex(real64), intent(in) :: x
    mag_c8 = hypot(real(x), aimag(x))
  end function mag_c8

  real(real64) function sq_i1(x)
    integer(int8), intent(in) :: x
    sq_i1 = real(x, real64) * real(x, real64)
  end function sq_i1
  real(real64) function sq_i2(x)
    integer(int16), intent(in) :: x
    sq_i2 = real(x, real64) * real(x, real64)
  end function sq_i2
  real(real64) function sq_i4(x)
    integer(int32), intent(in) :: x
    sq_i4 = real(x, real64) * real(x, real64)
  end function sq_i4
  real(real64) function sq_i8(x)
    integer(int64), intent(in) :: x
    sq_i8 = real(x, real64) * real(x, real64)
  end function sq_i8
  real(real64) function sq_r4(x)
    real(real32), intent(in) :: x
    sq_r4 = real(x, real64) * real(x, real64)
  end function sq_r4
  real(real64) function sq_r8(x)
    real(real64), intent(in) :: x
    sq_r8 = x * x
  end function sq_r8
  real(real64) function sq_c4(x)
    complex(real32), intent(in) :: x
    real(real64) :: re, im
    re = real(real(x), real64)
    im = real(aimag(x), real64)
    sq_c4 = re * re + im * im
  end function sq_c4
  real(real64) function sq_c8(x)
    complex(real64), intent(in) :: x
    sq_c8 = real(x) * real(x) + aimag(x) * aimag(x)
  end function sq_c8

  ! ---- one point's product: conj(x) * y for complex numbers, formed as the core does ----
  integer(int64) function dotp_i1(x, y)
    integer(int8), intent(in) :: x, y
    dotp_i1 = int(x, int64) * int(y, int64)
  end function dotp_i1
  integer(int64) function dotp_i2(x, y)
    integer(int16), intent(in) :: x, y
    dotp_i2 = int(x, int64) * int(y, int64)
  end function dotp_i2
  integer(int64) function dotp_i4(x, y)
    integer(int32), intent(in) :: x, y
    dotp_i4 = int(x, int64) * int(y, int64)
  end function dotp_i4
  integer(int64) function dotp_i8(x, y)
    integer(int64), intent(in) :: x, y
    dotp_i8 = x * y
  end function dotp_i8
  real(real64) function dotp_r4(x, y)
    real(real32), intent(in) :: x, y
    dotp_r4 = real(x, real64) * real(y, real64)
  end function dotp_r4
  real(real64) function dotp_r8(x, y)
    real(real64), intent(in) :: x, y
    dotp_r8 = x * y
  end function dotp_r8
  complex(real64) function dotp_c4(x, y)
    complex(real32), intent(in) :: x, y
    dotp_c4 = dotp_c8(cmplx(x, kind=real64), cmplx(y, kind=real64))
  end function dotp_c4
  complex(real64) function dotp_c8(x, y)
    complex(real64), intent(in) :: x, y
    real(real64) :: ar, ai, br, bi
    ar = real(x)
    ai = aimag(x)
    br = real(y)
    bi = aimag(y)
    dotp_c8 = cmplx(ar * br + ai * bi, ar * bi - ai * br, real64)
  end function dotp_c8

  ! ---- bitwise equality of the results ---------------------------------------------------
  logical function same_i8(x, y)
    integer(int64), intent(in) :: x, y
    same_i8 = x == y
  end function same_i8
  logical function same_r4(x, y)
    real(real32), intent(in) :: x, y
    same_r4 = transfer(x, 0_int32) == transfer(y, 0_int32)
  end function same_r4
  logical function same_r8(x, y)
    real(real64), intent(in) :: x, y
    same_r8 = transfer(x, 0_int64) == transfer(y, 0_int64)
  end function same_r8
  logical function same_c4(x, y)
    complex(real32), intent(in) :: x, y
    same_c4 = same_r4(real(x), real(y)) .and. same_r4(aimag(x), aimag(y))
  end function same_c4
  logical function same_c8(x, y)
    complex(real64), intent(in) :: x, y
    same_c8 = same_r8(real(x), real(y)) .and. same_r8(aimag(x), aimag(y))
  end function same_c8

  ! ---- the checks of each element type (reduce_type.inc) ---------------------------------

#define CHECKT check_int8
#define TYPE integer(int8)
#define STYPE integer(int64)
#define ACC integer(int64)
#define DTYPE DART_TYPE_BYTE
#define COMPS 1
#define ORDERED 1
#include "reduce_type.inc"

#define CHECKT check_int16
#define TYPE integer(int16)
#define STYPE integer(int64)
#define ACC integer(int64)
#define DTYPE DART_TYPE_SHORT
#define COMPS 1
#define ORDERED 1
#include "reduce_type.inc"

#define CHECKT check_int32
#define TYPE integer(int32)
#define STYPE integer(int64)
#define ACC integer(int64)
#define DTYPE DART_TYPE_INT
#define COMPS 1
#define ORDERED 1
#include "reduce_type.inc"

#define CHECKT check_int64
#define TYPE integer(int64)
#define STYPE integer(int64)
#define ACC integer(int64)
#define DTYPE DART_TYPE_LONGLONG
#define COMPS 1
#define ORDERED 1
#include "reduce_type.inc"

#define CHECKT check_real32
#define TYPE real(real32)
#define STYPE real(real32)
#define ACC real(real64)
#define DTYPE DART_TYPE_FLOAT
#define COMPS 1
#define ORDERED 1
#include "reduce_type.inc"

#define CHECKT check_real64
#define TYPE real(real64)
#define STYPE real(real64)
#define ACC real(real64)
#define DTYPE DART_TYPE_DOUBLE
#define COMPS 1
#define ORDERED 1
#include "reduce_type.inc"

#define CHECKT check_complex32
#define TYPE complex(real32)
#define STYPE complex(real32)
#define ACC complex(real64)
#define DTYPE DART_TYPE_FLOAT
#define COMPS 2
#define ORDERED 0
#include "reduce_type.inc"

#define CHECKT check_complex64
#define TYPE complex(real64)
#define STYPE complex(real64)
#define ACC complex(real64)
#define DTYPE DART_TYPE_DOUBLE
#define COMPS 2
#define ORDERED 0
#include "reduce_type.inc"

end module ftest_array_reduce_support

program ftest_array_reduce
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
  use dart
  use ftest
  use ftest_array_reduce_support
  implicit none

  call ftest_start('ftest_array_reduce')
  call ftest_section('every element type')
  call check_int8('integer(int8)')
  call check_int16('integer(int16)')
  call check_int32('integer(int32)')
  call check_int64('integer(int64)')
  call check_real32('real(real32)')
  call check_real64('real(real64)')
  call check_complex32('complex(real32)')
  call check_complex64('complex(real64)')
  call ftest_section('NaN')
  call nan_propagates()
  call ftest_section('bad input')
  call bad_input()
  call ftest_finish()

contains

  subroutine nan_propagates()
    type(dart_array) :: a
    real(real64), pointer :: p(:)
    real(real64) :: m, r
    integer :: lo(1), hi(1), st
    call dart_array_create(a, DART_TYPE_DOUBLE, [2 * nunits + 1], halo=[1])
    call dart_array_interior(a, p)
    call dart_array_query(a, lo=lo, hi=hi)
    p = 1.5_real64
    if (lo(1) <= nunits .and. nunits <= hi(1)) p(nunits) = ieee_value(1.0_real64, ieee_quiet_nan)
    call dart_array_reduce(a, DART_OP_MIN, m, stat=st)
    call check(st == DART_OK .and. ieee_is_nan(m), 'min with a NaN is NaN')
    call dart_array_reduce(a, DART_OP_MAX, m, stat=st)
    call check(st == DART_OK .and. ieee_is_nan(m), 'max with a NaN is NaN')
    call dart_array_norm(a, DART_ARRAY_NORM_INF, r, stat=st)
    call check(st == DART_OK .and. ieee_is_nan(r), 'norm inf with a NaN is NaN')
    call dart_array_destroy(a)
  end subroutine nan_propagates

  subroutine bad_input()
    type(dart_array) :: a, z, b
    integer(int32) :: i4
    integer(int64) :: i8
    real(real32) :: r4
    real(real64) :: r8
    complex(real64) :: c8
    character(len=400) :: msg
    integer :: st
    call dart_array_create(a, DART_TYPE_INT, [3, 2 * nunits])
    call dart_array_create(z, DART_TYPE_DOUBLE, [3, 2 * nunits], components=2)
    call dart_array_create(b, DART_TYPE_INT, [4, 2 * nunits])
    msg = ''
    i8 = 7
    call dart_array_reduce(a, DART_OP_PROD, i8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'DART_OP_PROD', 'product')
    call check(i8 == 7, 'nothing written by a failure')
    msg = ''
    i4 = 7
    call dart_array_reduce(a, DART_OP_SUM, i4, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'integer(int64)', &
                    'the sum of an integer(int32) array into integer(int32)')
    call check(i4 == 7, 'nothing written by a refused type')
    msg = ''
    call dart_array_reduce(a, DART_OP_MIN, i4, stat=st, errmsg=msg)
    call check_ok(st, 'min of integer(int32) into integer(int32)')
    msg = ''
    call dart_array_reduce(a, DART_OP_MAX, r4, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'integer(int32)', &
                    'max into real(real32)')
    msg = ''
    call dart_array_reduce(z, DART_OP_MAX, c8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'no order', 'max of complex')
    msg = ''
    call dart_array_reduce(z, DART_OP_SUM, r8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'complex(real64)', &
                    'the sum of complex numbers into a real')
    msg = ''
    call dart_array_norm(a, 0, r8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_norm', 'is not a norm', 'norm kind 0')
    msg = ''
    call dart_array_dot(a, b, i8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_dot', 'different shapes', &
                    'dot of different shapes')
    msg = ''
    call dart_array_dot(a, z, i8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_dot', 'different point types', &
                    'dot of different types')
    msg = ''
    call dart_array_dot(z, z, c8, stat=st, errmsg=msg)
    call check_ok(st, 'dot of complex numbers')
    msg = ''
    call dart_array_reduce(DART_ARRAY_NULL, DART_OP_SUM, i8, stat=st, errmsg=msg)
    call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'DART_ARRAY_NULL', 'null')
    ! A wrong result type on one unit only: every unit fails, nobody waits.
    if (nunits > 1) then
      msg = ''
      if (me == 1) then
        call dart_array_reduce(a, DART_OP_SUM, i4, stat=st, errmsg=msg)
        call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', 'integer(int64)', &
                        'the wrong type on unit 1')
      else
        call dart_array_reduce(a, DART_OP_SUM, i8, stat=st, errmsg=msg)
        call check_stat(st, DART_ERR_INVAL, msg, 'dart_array_reduce', &
                        'another unit failed: unit 1', 'the others')
      end if
    end if
    call dart_array_reduce(a, DART_OP_SUM, i8, stat=st)
    call check_ok(st, 'still in step')
    call dart_array_destroy(b)
    call dart_array_destroy(z)
    call dart_array_destroy(a)
  end subroutine bad_input

end program ftest_array_reduce
