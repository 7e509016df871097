# SPDX-License-Identifier: BSD-3-Clause
# The parallel HDF5 library of the MPI in use, for the HDF5 files of the arrays
# (cpp/src/array/h5.cc). Only h5.cc sees hdf5.h; the library links it privately.
#
# DART_ENABLE_HDF5: AUTO (default) uses it when found, ON requires it, OFF never uses it;
# without it the dart_h5_* calls fail with DART_ERR_INVAL "built without HDF5".
#
# Which HDF5: a parallel one built against the same MPI. Debian installs both side by
# side (libhdf5-mpich-dev, libhdf5-openmpi-dev: /usr/include/hdf5/<mpi>,
# /usr/lib/<multiarch>/hdf5/<mpi>/libhdf5.so), and /usr/bin/h5pcc names only one of them
# (the alternatives system), so those folders of DART_MPI_FLAVOR come first; else
# HDF5_ROOT or CMake's FindHDF5 with HDF5_PREFER_PARALLEL, which must report a parallel
# build. The result is checked: hdf5.h must define H5_HAVE_PARALLEL.
set(DART_ENABLE_HDF5 AUTO CACHE STRING "Use parallel HDF5 for the arrays' HDF5 files: AUTO, ON or OFF")
set_property(CACHE DART_ENABLE_HDF5 PROPERTY STRINGS AUTO ON OFF)
set(DART_HAVE_HDF5 OFF)
set(DART_HDF5_INCLUDE_DIR "")
set(DART_HDF5_LIBRARY "")
if(NOT DART_ENABLE_HDF5 STREQUAL "OFF")
  set(_dart_h5_lib_hints "")
  if(CMAKE_LIBRARY_ARCHITECTURE)
    list(APPEND _dart_h5_lib_hints "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/hdf5/${DART_MPI_FLAVOR}")
  endif()
  if(NOT HDF5_ROOT AND EXISTS "/usr/include/hdf5/${DART_MPI_FLAVOR}/hdf5.h")
    find_path(DART_HDF5_INC hdf5.h PATHS "/usr/include/hdf5/${DART_MPI_FLAVOR}" NO_DEFAULT_PATH)
    find_library(DART_HDF5_LIB hdf5 PATHS ${_dart_h5_lib_hints} NO_DEFAULT_PATH)
    if(DART_HDF5_INC AND DART_HDF5_LIB)
      set(DART_HDF5_INCLUDE_DIR "${DART_HDF5_INC}")
      set(DART_HDF5_LIBRARY "${DART_HDF5_LIB}")
    endif()
  endif()
  if(NOT DART_HDF5_LIBRARY)
    set(HDF5_PREFER_PARALLEL TRUE)
    find_package(HDF5 QUIET COMPONENTS C)
    if(HDF5_FOUND AND HDF5_IS_PARALLEL)
      list(GET HDF5_C_INCLUDE_DIRS 0 DART_HDF5_INCLUDE_DIR)
      list(GET HDF5_C_LIBRARIES 0 DART_HDF5_LIBRARY)
    elseif(HDF5_FOUND)
      message(STATUS "DART-MPI: HDF5 ${HDF5_VERSION} is serial; the HDF5 files need a parallel one")
    endif()
  endif()
  if(DART_HDF5_INCLUDE_DIR AND EXISTS "${DART_HDF5_INCLUDE_DIR}/H5pubconf.h")
    file(STRINGS "${DART_HDF5_INCLUDE_DIR}/H5pubconf.h" _dart_h5_par REGEX "define H5_HAVE_PARALLEL 1")
    file(STRINGS "${DART_HDF5_INCLUDE_DIR}/H5pubconf.h" _dart_h5_ver REGEX "define H5_VERSION ")
    if(_dart_h5_par)
      set(DART_HAVE_HDF5 ON)
    endif()
  endif()
endif()
if(DART_HAVE_HDF5)
  # The high-level library's dimension scales (H5DS) sit next to the library.
  get_filename_component(_dart_h5_dir "${DART_HDF5_LIBRARY}" DIRECTORY)
  find_library(DART_HDF5_HL_LIB hdf5_hl PATHS "${_dart_h5_dir}" NO_DEFAULT_PATH)
  if(NOT DART_HDF5_HL_LIB)
    set(DART_HAVE_HDF5 OFF)
    message(STATUS "DART-MPI: no libhdf5_hl next to ${DART_HDF5_LIBRARY}")
  endif()
endif()
if(DART_HAVE_HDF5)
  string(REGEX REPLACE ".*\"(.*)\".*" "\\1" _dart_h5_ver "${_dart_h5_ver}")
  message(STATUS "DART-MPI: HDF5 files from parallel HDF5 ${_dart_h5_ver} (${DART_HDF5_LIBRARY})")
  target_link_libraries(dartmpi PRIVATE "${DART_HDF5_HL_LIB}" "${DART_HDF5_LIBRARY}")
  set_source_files_properties("${CMAKE_CURRENT_SOURCE_DIR}/cpp/src/array/h5.cc" PROPERTIES
    COMPILE_DEFINITIONS "DART_HAVE_HDF5=1;H5_USE_110_API=1"
    INCLUDE_DIRECTORIES "${DART_HDF5_INCLUDE_DIR}")
elseif(DART_ENABLE_HDF5 STREQUAL "ON")
  message(FATAL_ERROR "DART_ENABLE_HDF5=ON but no parallel HDF5 for ${DART_MPI_FLAVOR} was found "
                      "(Debian: apt-get install libhdf5-${DART_MPI_FLAVOR}-dev)")
else()
  message(STATUS "DART-MPI: no parallel HDF5 (the dart_h5_* calls report it)")
endif()
