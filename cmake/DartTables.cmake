# SPDX-License-Identifier: BSD-3-Clause
# DartTables.cmake -- the Fortran named constants of module `dart`, generated from the one
# list of basic types, predefined operations and return codes in
# cpp/include/dash/dart/if/dart_tables.h (X-macros DART_BASIC_TYPE_LIST,
# DART_OPERATION_LIST, DART_RETURN_CODE_LIST) and from the constants of the distributed
# arrays in dart_array.h. Pure CMake: no Python at build time.
#
# Two uses of this one file:
#
#   include(DartTables)
#   dart_fortran_tables(<target> HEADER <dart_tables.h> ARRAY_HEADER <dart_array.h>
#                       OUTPUT_DIR <dir>)
#       adds a build step that (re)writes the include files whenever a header or this
#       script changes, makes <target> depend on them and puts <dir> on its include path;
#
#   cmake -DHEADER=<dart_tables.h> -DARRAY_HEADER=<dart_array.h> -DOUTPUT_DIR=<dir>
#         -P DartTables.cmake
#       the build step itself (script mode).
#
# <dir>/dart_tables.inc: `integer(...), parameter, public ::` declarations, for the
# specification part of a module that uses iso_c_binding and defines DART_DATATYPE_KIND
# and DART_OPERATION_KIND:
#   DART_OK, DART_PENDING, DART_ERR_* ...   the values of DART_RETURN_CODE_LIST
#   DART_TYPE_<name>                        1-based position in DART_BASIC_TYPE_LIST
#                                           (as the core asserts), UNDEFINED = 0,
#                                           LAST = count + 1
#   DART_OP_<name>                          the same for DART_OPERATION_LIST
#   DART_NOTIFY_<name>                      the values of DART_NOTIFY_OP_LIST
#   DARTF_KIND_<name>                       the ISO_C_BINDING kind of each basic type (the
#                                           Fortran kind column of the list)
#   DARTF_TYPE_KIND(t), DARTF_TYPE_INTEGER(t), DARTF_TYPE_NAME(t)
#                                           the same by DART_TYPE_* value t: the kind,
#                                           integer or real, the name (the array wrappers
#                                           accept a buffer of the kind and kind of number
#                                           of the array's basic type)
#   DART_ARRAY_MAX_DIMS, DART_STENCIL_<name>, DART_ARRAY_EXCHANGE_<name>,
#   DART_ARRAY_BOUNDARY_<name>, DART_ARRAY_NORM_<name>
#                                           the #define and the enum values of dart_array.h
# <dir>/dart_tables_public.inc: `public ::` statements naming the DART_* constants (not
# the DARTF_* ones, nor DART_ARRAY_BOUNDARY_*: the Fortran interface says `periodic=`
# with logicals), for a module that re-exports them.
# A file is rewritten only when its text changes, so an unrelated edit of the header
# recompiles nothing.

# Parse the X-macro list `list` of the header text `text` into `out`: one item per entry,
# the entry's arguments separated by "|" (whitespace trimmed). Entries have no nested
# parentheses and no commas inside an argument (the lists are written that way).
function(_dart_tables_parse text list out)
  string(REGEX MATCH "#define[ \t]+${list}\\(X\\)[^\n]*" def "${text}")
  if(NOT def)
    message(FATAL_ERROR "DartTables: no '#define ${list}(X)' in ${HEADER}")
  endif()
  string(REGEX REPLACE "^#define[ \t]+${list}\\(X\\)" "" body "${def}")
  string(REGEX MATCHALL "X\\([^()]*\\)" entries "${body}")
  set(items "")
  foreach(entry IN LISTS entries)
    string(REGEX REPLACE "^X\\((.*)\\)$" "\\1" inner "${entry}")
    string(REPLACE "," ";" args "${inner}")
    set(fields "")
    foreach(a IN LISTS args)
      string(STRIP "${a}" a)
      list(APPEND fields "${a}")
    endforeach()
    list(JOIN fields "|" joined)
    list(APPEND items "${joined}")
  endforeach()
  if(NOT items)
    message(FATAL_ERROR "DartTables: ${list} in ${HEADER} has no entries")
  endif()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# Field `index` (0-based) of a parsed entry, checked against a regex.
function(_dart_tables_field entry index regex what out)
  string(REPLACE "|" ";" fields "${entry}")
  list(LENGTH fields n)
  if(index GREATER_EQUAL n)
    message(FATAL_ERROR "DartTables: entry '${entry}' of ${HEADER} has no ${what}")
  endif()
  list(GET fields ${index} value)
  if(NOT value MATCHES "${regex}")
    message(FATAL_ERROR "DartTables: '${value}' is not a valid ${what} (entry '${entry}' "
                        "of ${HEADER})")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The constants of dart_array.h (`array_header`) into `out`, as "name|value" items:
# `#define DART_ARRAY_MAX_DIMS <n>` and the enum members `DART_<group>_<name> = <value>`
# of the groups STENCIL, ARRAY_EXCHANGE, ARRAY_BOUNDARY and ARRAY_NORM.
function(_dart_tables_array array_header out)
  file(READ "${array_header}" text)
  string(REGEX MATCH "#define[ \t]+DART_ARRAY_MAX_DIMS[ \t]+([0-9]+)" def "${text}")
  if(NOT def)
    message(FATAL_ERROR "DartTables: no '#define DART_ARRAY_MAX_DIMS <n>' in ${array_header}")
  endif()
  set(items "DART_ARRAY_MAX_DIMS|${CMAKE_MATCH_1}")
  foreach(group STENCIL ARRAY_EXCHANGE ARRAY_BOUNDARY ARRAY_NORM)
    string(REGEX MATCHALL "DART_${group}_[A-Z0-9_]+[ \t]*=[ \t]*[0-9]+" entries "${text}")
    if(NOT entries)
      message(FATAL_ERROR "DartTables: no enum member 'DART_${group}_<name> = <value>' in "
                          "${array_header}")
    endif()
    foreach(e IN LISTS entries)
      string(REGEX REPLACE "^(DART_[A-Z0-9_]+)[ \t]*=[ \t]*([0-9]+)$" "\\1|\\2" item "${e}")
      list(APPEND items "${item}")
    endforeach()
  endforeach()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# The text of the include files for the headers `header` (dart_tables.h) and
# `array_header` (dart_array.h).
function(_dart_tables_fortran header array_header out out_public)
  file(READ "${header}" text)
  # One #define per line: join the continuation lines.
  string(REGEX REPLACE "\\\\\n" " " text "${text}")
  _dart_tables_parse("${text}" DART_RETURN_CODE_LIST codes)
  _dart_tables_parse("${text}" DART_BASIC_TYPE_LIST types)
  _dart_tables_parse("${text}" DART_OPERATION_LIST ops)
  _dart_tables_parse("${text}" DART_NOTIFY_OP_LIST notify_ops)

  set(name_re "^[A-Z][A-Z0-9_]*$")
  set(decl_code "integer, parameter, public ::")
  set(decl_type "integer(DART_DATATYPE_KIND), parameter, public ::")
  set(decl_op "integer(DART_OPERATION_KIND), parameter, public ::")
  set(decl_kind "integer, parameter, public ::")

  set(f "! dart_tables.inc -- GENERATED by cmake/DartTables.cmake from dart_tables.h and\n")
  string(APPEND f "! dart_array.h. Do not edit: add a type, operation or return code to the lists of\n")
  string(APPEND f "! cpp/include/dash/dart/if/dart_tables.h (and its #define to dart_types.h).\n\n")

  set(names "")   # the DART_* constants, for the public statements
  string(APPEND f "  ! Return codes (dart_ret_t): DART_RETURN_CODE_LIST.\n")
  foreach(e IN LISTS codes)
    _dart_tables_field("${e}" 0 "${name_re}" "return code name" name)
    _dart_tables_field("${e}" 1 "^-?[0-9]+$" "return code value" value)
    string(APPEND f "  ${decl_code} DART_${name} = ${value}\n")
    list(APPEND names DART_${name})
  endforeach()

  string(APPEND f "\n  ! Basic datatypes (dart_datatype_t): position in DART_BASIC_TYPE_LIST.\n")
  string(APPEND f "  ${decl_type} DART_TYPE_UNDEFINED = 0\n")
  list(APPEND names DART_TYPE_UNDEFINED)
  set(i 0)
  set(kinds "")
  set(by_type_kind "")   # the per-type tables, one entry per line
  set(by_type_int "")
  set(by_type_name "")
  foreach(e IN LISTS types)
    math(EXPR i "${i} + 1")
    _dart_tables_field("${e}" 0 "${name_re}" "type name" name)
    _dart_tables_field("${e}" 6 "^c_[a-z0-9_]+$" "ISO_C_BINDING kind" kind)
    _dart_tables_field("${e}" 7 "^(integer|real)$" "Fortran intrinsic type" ftype)
    string(APPEND f "  ${decl_type} DART_TYPE_${name} = ${i}\n")
    list(APPEND names DART_TYPE_${name})
    string(APPEND kinds "  ${decl_kind} DARTF_KIND_${name} = ${kind}   ! ${ftype}\n")
    set(sep ", &\n")
    if(i EQUAL 1)
      set(sep "")
    endif()
    string(APPEND by_type_kind "${sep}    DARTF_KIND_${name}")
    if(ftype STREQUAL "integer")
      string(APPEND by_type_int "${sep}    .true.")
    else()
      string(APPEND by_type_int "${sep}    .false.")
    endif()
    string(APPEND by_type_name "${sep}    'DART_TYPE_${name}'")
  endforeach()
  set(ntypes ${i})
  math(EXPR i "${i} + 1")
  string(APPEND f "  ${decl_type} DART_TYPE_LAST = ${i}\n")
  list(APPEND names DART_TYPE_LAST)

  string(APPEND f "\n  ! ISO_C_BINDING kind of each basic type (for the library, not re-exported by\n")
  string(APPEND f "  ! module dart; the comment names the Fortran intrinsic type).\n${kinds}")
  string(APPEND f "\n  ! The same by DART_TYPE_* value (1 .. DART_TYPE_LAST - 1): kind, integer (else\n")
  string(APPEND f "  ! real), name; for the library's checks, not re-exported.\n")
  string(APPEND f "  ${decl_kind} DARTF_TYPE_KIND(${ntypes}) = [ &\n${by_type_kind}]\n")
  string(APPEND f "  logical, parameter, public :: DARTF_TYPE_INTEGER(${ntypes}) = [ &\n${by_type_int}]\n")
  string(APPEND f "  character(len=*), parameter, public :: DARTF_TYPE_NAME(${ntypes}) = &\n")
  string(APPEND f "    [character(len=24) :: &\n${by_type_name}]\n")

  string(APPEND f "\n  ! Predefined operations (dart_operation_t): position in DART_OPERATION_LIST.\n")
  string(APPEND f "  ${decl_op} DART_OP_UNDEFINED = 0\n")
  list(APPEND names DART_OP_UNDEFINED)
  set(i 0)
  foreach(e IN LISTS ops)
    math(EXPR i "${i} + 1")
    _dart_tables_field("${e}" 0 "${name_re}" "operation name" name)
    string(APPEND f "  ${decl_op} DART_OP_${name} = ${i}\n")
    list(APPEND names DART_OP_${name})
  endforeach()
  math(EXPR i "${i} + 1")
  string(APPEND f "  ${decl_op} DART_OP_LAST = ${i}\n")
  list(APPEND names DART_OP_LAST)

  string(APPEND f "\n  ! Notified access (dart_notify_op_t): the values of DART_NOTIFY_OP_LIST.\n")
  foreach(e IN LISTS notify_ops)
    _dart_tables_field("${e}" 0 "${name_re}" "notify operation name" name)
    _dart_tables_field("${e}" 1 "^[0-9]+$" "notify operation value" value)
    string(APPEND f "  ${decl_code} DART_NOTIFY_${name} = ${value}\n")
    list(APPEND names DART_NOTIFY_${name})
  endforeach()

  _dart_tables_array("${array_header}" array_items)
  string(APPEND f "\n  ! Distributed arrays (dart_array.h): DART_ARRAY_MAX_DIMS and the enum values.\n")
  foreach(e IN LISTS array_items)
    _dart_tables_field("${e}" 0 "${name_re}" "dart_array.h constant name" name)
    _dart_tables_field("${e}" 1 "^[0-9]+$" "dart_array.h constant value" value)
    string(APPEND f "  ${decl_code} ${name} = ${value}\n")
    if(NOT name MATCHES "^DART_ARRAY_BOUNDARY_")
      list(APPEND names ${name})
    endif()
  endforeach()

  set(p "! dart_tables_public.inc -- GENERATED by cmake/DartTables.cmake from dart_tables.h\n")
  string(APPEND p "! and dart_array.h: the constants of dart_tables.inc that module dart re-exports.\n")
  string(APPEND p "! Do not edit.\n")
  foreach(name IN LISTS names)
    string(APPEND p "  public :: ${name}\n")
  endforeach()
  set(${out} "${f}" PARENT_SCOPE)
  set(${out_public} "${p}" PARENT_SCOPE)
endfunction()

# Write `text` to `output`. The same text is not written again (a reconfigure recompiles
# nothing); with `touch`, an up-to-date file gets a new time stamp instead, so that the
# build step does not run again on every build.
function(_dart_tables_put output text touch)
  if(EXISTS "${output}")
    file(READ "${output}" old)
    if(old STREQUAL text)
      if(touch)
        file(TOUCH "${output}")
      endif()
      return()
    endif()
  endif()
  file(WRITE "${output}" "${text}")
endfunction()

function(_dart_tables_write header array_header dir touch)
  _dart_tables_fortran("${header}" "${array_header}" text text_public)
  _dart_tables_put("${dir}/dart_tables.inc" "${text}" ${touch})
  _dart_tables_put("${dir}/dart_tables_public.inc" "${text_public}" ${touch})
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  # cmake -DHEADER=... -DARRAY_HEADER=... -DOUTPUT_DIR=... -P DartTables.cmake
  if(NOT HEADER OR NOT ARRAY_HEADER OR NOT OUTPUT_DIR)
    message(FATAL_ERROR "usage: cmake -DHEADER=<dart_tables.h> -DARRAY_HEADER=<dart_array.h> "
                        "-DOUTPUT_DIR=<dir> -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  _dart_tables_write("${HEADER}" "${ARRAY_HEADER}" "${OUTPUT_DIR}" TRUE)
  return()
endif()

set(_DART_TABLES_SCRIPT "${CMAKE_CURRENT_LIST_FILE}")

# dart_fortran_tables(<target> HEADER <dart_tables.h> ARRAY_HEADER <dart_array.h>
#                     OUTPUT_DIR <dir>)
function(dart_fortran_tables target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "HEADER;ARRAY_HEADER;OUTPUT_DIR" "")
  if(NOT arg_HEADER OR NOT arg_ARRAY_HEADER OR NOT arg_OUTPUT_DIR)
    message(FATAL_ERROR "dart_fortran_tables: HEADER, ARRAY_HEADER and OUTPUT_DIR are required")
  endif()
  set(outputs "${arg_OUTPUT_DIR}/dart_tables.inc" "${arg_OUTPUT_DIR}/dart_tables_public.inc")
  # Generate at configure time too: a malformed list fails at once, and the files exist
  # before the first Fortran dependency scan.
  set(HEADER "${arg_HEADER}")
  file(MAKE_DIRECTORY "${arg_OUTPUT_DIR}")
  _dart_tables_write("${arg_HEADER}" "${arg_ARRAY_HEADER}" "${arg_OUTPUT_DIR}" FALSE)
  add_custom_command(OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" "-DHEADER=${arg_HEADER}" "-DARRAY_HEADER=${arg_ARRAY_HEADER}"
            "-DOUTPUT_DIR=${arg_OUTPUT_DIR}" -P "${_DART_TABLES_SCRIPT}"
    DEPENDS "${arg_HEADER}" "${arg_ARRAY_HEADER}" "${_DART_TABLES_SCRIPT}"
    COMMENT "Generating the Fortran constants from dart_tables.h and dart_array.h"
    VERBATIM)
  # Sources of the target: every compilation of the target waits for them.
  target_sources(${target} PRIVATE ${outputs})
  set_source_files_properties(${outputs} PROPERTIES HEADER_FILE_ONLY ON GENERATED ON)
  target_include_directories(${target} PRIVATE "$<BUILD_INTERFACE:${arg_OUTPUT_DIR}>")
endfunction()
