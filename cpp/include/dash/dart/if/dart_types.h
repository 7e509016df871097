/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_types.h -- basic types, return codes, reduction operations and data
 * types of the DART interface.
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible):
 * names, types and numeric values below are those of DART 3.2. Additions of
 * ours are marked "DART-MPI extension".
 */
#ifndef DART_TYPES_H_INCLUDED
#define DART_TYPES_H_INCLUDED

#include <stdlib.h>   /* EXIT_SUCCESS, EXIT_FAILURE */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Return codes                                                             */
/* ------------------------------------------------------------------------ */

/**
 * Result of every DART call. DART_OK is 0; all other values signal that the
 * call did not (or not yet) do its job. dart_strerror() (dart_ext.h) turns a
 * code into text and dart_error_detail() says what exactly went wrong.
 */
typedef enum
{
  DART_OK           =   0, /**< success */
  DART_PENDING      =   1, /**< the operation has not completed yet */
  DART_ERR_INVAL    =   2, /**< invalid argument or invalid use */
  DART_ERR_NOTFOUND =   3, /**< the referenced object (team, segment, ...) does not exist */
  DART_ERR_NOTINIT  =   4, /**< DART is not initialized */
  DART_ERR_NOMEM    =   5, /**< out of memory (e.g. the dart_memalloc pool is
                                exhausted; raise DART_POOL_SIZE).
                                DART-MPI extension */
  DART_ERR_OTHER    = 999  /**< any other failure, e.g. an MPI error */
} dart_ret_t;

/** Process exit codes used by DART programs. */
enum
{
  DART_EXIT_SUCCESS = EXIT_SUCCESS, /**< normal termination */
  DART_EXIT_ABORT   = EXIT_FAILURE, /**< generic abnormal termination */
  DART_EXIT_ASSERT  = -6            /**< termination after a failed assertion */
};

/* ------------------------------------------------------------------------ */
/* Reduction / accumulation operations                                      */
/* ------------------------------------------------------------------------ */

/**
 * Operation applied by dart_accumulate, dart_fetch_and_op, dart_reduce and
 * dart_allreduce. The predefined operations are the small integers below;
 * dart_op_create returns further (user-defined) values, which is why the type
 * is pointer sized.
 */
typedef intptr_t dart_operation_t;

#define DART_OP_UNDEFINED  ((dart_operation_t)0)  /**< invalid, never use */
#define DART_OP_MIN        ((dart_operation_t)1)  /**< minimum */
#define DART_OP_MAX        ((dart_operation_t)2)  /**< maximum */
/** Minimum and maximum at once, on pairs (element DART_OP_MINMAX_MIN holds
 *  the minimum, element DART_OP_MINMAX_MAX the maximum); reductions only. */
#define DART_OP_MINMAX     ((dart_operation_t)3)
#define DART_OP_SUM        ((dart_operation_t)4)  /**< sum */
#define DART_OP_PROD       ((dart_operation_t)5)  /**< product */
#define DART_OP_BAND       ((dart_operation_t)6)  /**< bitwise and */
#define DART_OP_LAND       ((dart_operation_t)7)  /**< logical and */
#define DART_OP_BOR        ((dart_operation_t)8)  /**< bitwise or */
#define DART_OP_LOR        ((dart_operation_t)9)  /**< logical or */
#define DART_OP_BXOR       ((dart_operation_t)10) /**< bitwise exclusive or */
#define DART_OP_LXOR       ((dart_operation_t)11) /**< logical exclusive or */
#define DART_OP_REPLACE    ((dart_operation_t)12) /**< overwrite the target value */
#define DART_OP_NO_OP      ((dart_operation_t)13) /**< leave the target unchanged (atomic read) */
#define DART_OP_LAST       ((dart_operation_t)14) /**< one past the last predefined op */

/** Index of the minimum inside a DART_OP_MINMAX pair. */
#define DART_OP_MINMAX_MIN 0
/** Index of the maximum inside a DART_OP_MINMAX pair. */
#define DART_OP_MINMAX_MAX 1

/* ------------------------------------------------------------------------ */
/* Data types                                                               */
/* ------------------------------------------------------------------------ */

/**
 * Element type of a transfer. Values up to DART_TYPE_LAST are the basic
 * types below; dart_type_create_* return derived types (pointer-sized
 * handles) that stay valid until dart_type_destroy.
 */
typedef intptr_t dart_datatype_t;

#define DART_TYPE_UNDEFINED    ((dart_datatype_t)0)  /**< invalid, never use */
#define DART_TYPE_BYTE         ((dart_datatype_t)1)  /**< char / raw byte */
#define DART_TYPE_SHORT        ((dart_datatype_t)2)  /**< short */
#define DART_TYPE_INT          ((dart_datatype_t)3)  /**< int */
#define DART_TYPE_UINT         ((dart_datatype_t)4)  /**< unsigned int */
#define DART_TYPE_LONG         ((dart_datatype_t)5)  /**< long */
#define DART_TYPE_ULONG        ((dart_datatype_t)6)  /**< unsigned long */
#define DART_TYPE_LONGLONG     ((dart_datatype_t)7)  /**< long long */
#define DART_TYPE_ULONGLONG    ((dart_datatype_t)8)  /**< unsigned long long */
#define DART_TYPE_FLOAT        ((dart_datatype_t)9)  /**< float */
#define DART_TYPE_DOUBLE       ((dart_datatype_t)10) /**< double */
#define DART_TYPE_LONG_DOUBLE  ((dart_datatype_t)11) /**< long double */
#define DART_TYPE_LAST         ((dart_datatype_t)12) /**< one past the last basic type */

/** The basic type matching size_t on this platform. */
#if (SIZE_MAX == UINT32_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONG
#elif (SIZE_MAX == UINT64_MAX)
#  define DART_TYPE_SIZET DART_TYPE_ULONGLONG
#else
#  error "dart_types.h: no DART basic type matches size_t"
#endif

/* ------------------------------------------------------------------------ */
/* Units and teams                                                          */
/* ------------------------------------------------------------------------ */

/** Plain integer unit id (0-based). */
typedef int32_t dart_unit_t;

/** The unit id that names no unit. */
#define DART_UNDEFINED_UNIT_ID ((dart_unit_t)(-1))

/** A unit id relative to DART_TEAM_ALL. */
typedef struct dart_global_unit {
#ifdef __cplusplus
  constexpr dart_global_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_global_unit(dart_unit_t uid) : id(uid) { }
#endif
  dart_unit_t id;
} dart_global_unit_t;

/** A unit id relative to some team (0 .. team size - 1). */
typedef struct dart_local_unit {
#ifdef __cplusplus
  constexpr dart_local_unit() : id(DART_UNDEFINED_UNIT_ID) { }
  constexpr dart_local_unit(dart_unit_t uid) : id(uid) { }
#endif
  dart_unit_t id;
} dart_team_unit_t;

/** Wrap a plain id as a team-relative unit id. */
DART_INLINE
dart_team_unit_t dart_create_team_unit(dart_unit_t unit)
{
  dart_team_unit_t u = { unit };
  return u;
}

/** Wrap a plain id as a global unit id. */
DART_INLINE
dart_global_unit_t dart_create_global_unit(dart_unit_t unit)
{
  dart_global_unit_t u = { unit };
  return u;
}

/** Shorthand for dart_create_team_unit(u). */
#define DART_TEAM_UNIT_ID(__u)   (dart_create_team_unit(__u))
/** Shorthand for dart_create_global_unit(u). */
#define DART_GLOBAL_UNIT_ID(__u) (dart_create_global_unit(__u))

/** Team-relative id that names no unit. */
#define DART_UNDEFINED_TEAM_UNIT_ID   DART_TEAM_UNIT_ID(DART_UNDEFINED_UNIT_ID)
/** Global id that names no unit. */
#define DART_UNDEFINED_GLOBAL_UNIT_ID DART_GLOBAL_UNIT_ID(DART_UNDEFINED_UNIT_ID)

/** Team identifier (see DART_TEAM_ALL / DART_TEAM_NULL in dart_team_group.h). */
typedef int16_t dart_team_t;

/** Team id that names no team. */
#define DART_UNDEFINED_TEAM_ID ((dart_team_t)(-1))

/** Thread support requested from / granted by dart_init_thread. */
typedef enum
{
  /** Only one thread per unit calls DART. */
  DART_THREAD_SINGLE   = 0,
  /** Any thread may call DART at any time (needs MPI_THREAD_MULTIPLE). */
  DART_THREAD_MULTIPLE = 10
} dart_thread_support_level_t;

/* ------------------------------------------------------------------------ */
/* Locality (dart_locality.h) and configuration (dart_config.h)             */
/* ------------------------------------------------------------------------ */

/**
 * Scope of a locality domain. Larger values are deeper in the hierarchy, so
 * (a > b) means "a lies below b". DART-MPI builds domains at the scopes
 * GLOBAL, NODE, MODULE, NUMA and CORE (and GROUP for dart_domain_group); the
 * others exist for DART 3.2 compatibility.
 */
typedef enum
{
  DART_LOCALITY_SCOPE_UNDEFINED =  -1, /**< no scope */
  DART_LOCALITY_SCOPE_GLOBAL    =   0, /**< every unit of a team */
  DART_LOCALITY_SCOPE_GROUP     =   1, /**< domains grouped by dart_domain_group */
  DART_LOCALITY_SCOPE_NETWORK   =  50, /**< interconnect (not built by DART-MPI) */
  DART_LOCALITY_SCOPE_NODE      = 100, /**< one node: shared memory (an emulated
                                            node of DART_UNITS_PER_NODE too) */
  DART_LOCALITY_SCOPE_MODULE    = 200, /**< the node's processor module (one per node) */
  DART_LOCALITY_SCOPE_NUMA      = 300, /**< one NUMA domain of a node */
  DART_LOCALITY_SCOPE_UNIT      = 400, /**< one unit (not built by DART-MPI) */
  DART_LOCALITY_SCOPE_PACKAGE   = 500, /**< processor package (not built) */
  DART_LOCALITY_SCOPE_UNCORE    = 510, /**< uncore (not built) */
  DART_LOCALITY_SCOPE_CACHE     = 530, /**< a cache (not built) */
  DART_LOCALITY_SCOPE_CORE      = 550, /**< one core: the leaves, where units sit */
  DART_LOCALITY_SCOPE_CPU       = 600  /**< hardware thread (not built) */
} dart_locality_scope_t;

/** Bytes of a host name in the locality types (HOST_NAME_MAX of Linux; fixed here
 *  so that C and C++ programs agree on the layout of the types). */
#define DART_LOCALITY_HOST_MAX_SIZE       ((int)(64))
/** Bytes of a domain tag (".0.1.2"). */
#define DART_LOCALITY_DOMAIN_TAG_MAX_SIZE ((int)(32))
/** Entries of dart_hwinfo_t.scopes. */
#define DART_LOCALITY_MAX_DOMAIN_SCOPES   ((int)(12))
/** DART 3.2 constant (unused). */
#define DART_LOCALITY_UNIT_MAX_CPUS       ((int)(64))
/** DART 3.2 constant (unused). */
#define DART_LOCALITY_MAX_NUMA_ID         ((int)(16))
/** Entries of the cache arrays of dart_hwinfo_t (index 0: L1, 1: L2, 2: L3). */
#define DART_LOCALITY_MAX_CACHE_LEVELS    ((int)( 5))

/** A scope and the index of a domain in it (dart_hwinfo_t.scopes). */
typedef struct
{
  dart_locality_scope_t scope;  /**< the scope */
  int                   index;  /**< the domain's index among the scope's domains of its node */
} dart_locality_scope_pos_t;

/**
 * Hardware of one unit (dart_unit_locality_t.hwinfo). A value DART-MPI does not
 * know is -1. Fixed size: the units exchange these by value.
 */
typedef struct
{
  char host[DART_LOCALITY_HOST_MAX_SIZE]; /**< the unit's node: its host name, with
                                               "#<i>" appended for the i-th of several
                                               nodes on one machine (emulation) */
  int  num_cores;    /**< cores of the unit's node (an emulated node: its share of the
                          machine's cores, by units) */
  int  num_numa;     /**< NUMA domains of the unit's machine */
  int  numa_id;      /**< the NUMA domain of the unit's CPU (OS index) */
  int  num_sockets;  /**< processor packages of the machine */
  int  core_id;      /**< the core of the unit's CPU (numbered 0.. on its machine) */
  int  cpu_id;       /**< the CPU (hardware thread, OS index) the unit ran on at init */
  int  min_cpu_mhz;  /**< minimum clock of the machine's CPUs */
  int  max_cpu_mhz;  /**< maximum clock of the machine's CPUs */
  int  cache_sizes[DART_LOCALITY_MAX_CACHE_LEVELS];      /**< bytes per level (L1d, L2, L3) */
  int  cache_line_sizes[DART_LOCALITY_MAX_CACHE_LEVELS]; /**< line bytes per level */
  int  cache_ids[DART_LOCALITY_MAX_CACHE_LEVELS];        /**< id of the unit's cache per level */
  int  min_threads;  /**< hardware threads per core (minimum over the cores) */
  int  max_threads;  /**< hardware threads per core (maximum) */
  int  max_shmem_mbps;  /**< shared-memory bandwidth (unknown: -1) */
  int  system_memory_bytes; /**< memory of the machine in MiB (the unit is MiB, as
                                 DART 3.2 fills it, despite the name) */
  int  numa_memory_bytes;   /**< memory of the unit's NUMA domain in MiB */
  dart_locality_scope_pos_t scopes[DART_LOCALITY_MAX_DOMAIN_SCOPES]; /**< the unit's
                          domains below its node, innermost first: CORE, NUMA */
  int  num_scopes;   /**< entries of scopes */
} dart_hwinfo_t;

/** DART 3.2 type (a module of a node); DART-MPI builds one module per node. */
typedef struct
{
  char host[DART_LOCALITY_HOST_MAX_SIZE];    /**< the node's host name */
  char module[DART_LOCALITY_HOST_MAX_SIZE];  /**< the module's name */
  dart_locality_scope_pos_t pos;             /**< its scope and index */
} dart_module_location_t;

/**
 * A locality domain: one node of the tree GLOBAL -> NODE -> MODULE -> NUMA -> CORE
 * that dart_domain_team_locality returns for a team (dart_locality.h). Units sit
 * at CORE domains (several units share one when they ran on one core). A domain
 * is named by its tag: "." for the root, then the relative index on every level
 * (".0.0.1.3").
 */
struct dart_domain_locality_s
{
  char host[DART_LOCALITY_HOST_MAX_SIZE];             /**< the node's host name ("" above) */
  char domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];  /**< the domain's tag */
  struct dart_domain_locality_s ** aliases;  /**< other domains for the same units */
  int                              num_aliases;
  dart_locality_scope_t            scope;    /**< its scope */
  int                              level;    /**< depth: 0 for the root */
  int                              global_index;   /**< index in its scope (nodes: the
                                                        node index; NUMA and cores: the
                                                        OS / machine index) */
  int                              relative_index; /**< index among its parent's children */
  struct dart_domain_locality_s  * parent;   /**< NULL for the root */
  int                              num_domains;  /**< children */
  struct dart_domain_locality_s ** children;     /**< num_domains pointers */
  int                              is_symmetric; /**< children alike (cores and units) */
  dart_team_t                      team;     /**< the team the tree belongs to */
  int                              num_units;    /**< units in the domain */
  dart_global_unit_t             * unit_ids;     /**< their global ids, ascending */
  int                              num_nodes;    /**< nodes in the domain */
  int                              node_id;      /**< its node index, -1 above nodes */
  int                              num_cores;    /**< cores in the domain */
  int                              shared_mem_bytes; /**< -1: unknown */
};
/** A locality domain (struct dart_domain_locality_s). */
typedef struct dart_domain_locality_s dart_domain_locality_t;

/** Locality of one unit of a team (dart_unit_locality). Fixed size. */
typedef struct
{
  dart_team_unit_t unit;   /**< the unit, relative to team */
  dart_team_t      team;   /**< the team */
  dart_hwinfo_t    hwinfo; /**< its hardware */
  char domain_tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE]; /**< tag of its CORE domain in
                                                           the team's tree */
} dart_unit_locality_t;

/** The runtime's configuration (dart_config.h). */
typedef struct
{
  int log_enabled;  /**< DART 3.2's logging switch; DART-MPI writes no log */
} dart_config_t;

/* ------------------------------------------------------------------------ */
/* Derived data types (all calls are local)                                 */
/* ------------------------------------------------------------------------ */

/**
 * Create a strided type: blocks of `blocklen` elements of `basetype`, block
 * starts `stride` elements apart (e.g. a matrix column: blocklen 1, stride =
 * row length). A transfer with this type moves a multiple of `blocklen`
 * elements. `basetype` must be a basic or custom type. Local call.
 */
dart_ret_t dart_type_create_strided(
  dart_datatype_t    basetype,
  size_t             stride,
  size_t             blocklen,
  dart_datatype_t  * newtype) DART_NOTHROW;

/**
 * Create an indexed type: `count` blocks, block i holds `blocklen[i]`
 * elements of `basetype` and starts `offset[i]` elements from the beginning.
 * A transfer moves a multiple of sum(blocklen) elements. Local call.
 */
dart_ret_t dart_type_create_indexed(
  dart_datatype_t    basetype,
  size_t             count,
  const size_t       blocklen[],
  const size_t       offset[],
  dart_datatype_t  * newtype) DART_NOTHROW;

/**
 * Create a contiguous opaque type of `num_bytes` bytes (e.g. a struct), for
 * transfers, collectives and user-defined reductions (dart_op_create).
 * Local call.
 */
dart_ret_t dart_type_create_custom(
  size_t             num_bytes,
  dart_datatype_t  * newtype) DART_NOTHROW;

/**
 * Release a derived type and set *dart_type to DART_TYPE_UNDEFINED.
 * Operations already started with the type still complete normally; no new
 * operation may use it. Basic types cannot be destroyed. Local call.
 */
dart_ret_t dart_type_destroy(
  dart_datatype_t  * dart_type) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* User-defined reduction operations (all calls are local)                  */
/* ------------------------------------------------------------------------ */

/**
 * User reduction function: combine `len` elements element-wise,
 * inoutvec[i] = invec[i] (op) inoutvec[i]. `userdata` is the pointer given to
 * dart_op_create.
 */
typedef void (*dart_operator_t)(
  const void * invec,
  void       * inoutvec,
  size_t       len,
  void       * userdata);

/**
 * Create a reduction operation from a user function, usable in dart_reduce
 * and dart_allreduce with data type `dtype` only. `commute` tells whether the
 * function is commutative. Pass `dtype_is_tmp` = true when `dtype` was
 * created just for this operation and is used with no other user operation
 * while this one exists (saves an internal copy of the type); otherwise
 * false. Units of a team must create their operations in the same way before
 * using them in a collective. Local call.
 */
dart_ret_t dart_op_create(
  dart_operator_t    op,
  void             * userdata,
  bool               commute,
  dart_datatype_t    dtype,
  bool               dtype_is_tmp,
  dart_operation_t * new_op) DART_NOTHROW;

/**
 * Release an operation made by dart_op_create and set *op to
 * DART_OP_UNDEFINED. Predefined operations cannot be destroyed. Local call.
 */
dart_ret_t dart_op_destroy(
  dart_operation_t * op) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TYPES_H_INCLUDED */
