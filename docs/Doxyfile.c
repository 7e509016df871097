# SPDX-License-Identifier: BSD-3-Clause
# Doxygen for the C API reference (XML for breathe); scripts/docs.sh runs it from the
# repository root with DART_DOXYGEN_OUT set.
PROJECT_NAME           = "DART-MPI C API"
INPUT                  = cpp/include/dash/dart/if
FILE_PATTERNS          = *.h
RECURSIVE              = NO
OUTPUT_DIRECTORY       = $(DART_DOXYGEN_OUT)
GENERATE_XML           = YES
GENERATE_HTML          = NO
GENERATE_LATEX         = NO
OPTIMIZE_OUTPUT_FOR_C  = YES
EXTRACT_ALL            = YES
EXTRACT_STATIC         = YES
JAVADOC_AUTOBRIEF      = YES
ENABLE_PREPROCESSING   = YES
MACRO_EXPANSION        = YES
EXPAND_ONLY_PREDEF     = YES
PREDEFINED             = DART_NOTHROW= DART_NORETURN= "DART_INLINE=static inline" DART_MAYBE_UNUSED=
# A compile-time size check (a typedef of an array of size -1 when it fails), no API.
EXCLUDE_SYMBOLS        = dart__gptr_is_16_bytes
QUIET                  = YES
WARNINGS               = YES
WARN_IF_UNDOCUMENTED   = NO
WARN_AS_ERROR          = NO
HAVE_DOT               = NO
