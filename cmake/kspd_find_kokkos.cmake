# Finds Kokkos and Kokkos Kernels by their package configs and defines kspd::kokkos_all,
# one interface target that works for both Debian's Trilinos 13.2 (Kokkos 3.4.01) and a
# current standalone Kokkos 4.x/5.x install. Included by the build and by kspdConfig.cmake.

find_package(Kokkos REQUIRED CONFIG)
if(Kokkos_VERSION VERSION_LESS 3.4)
  message(FATAL_ERROR "kspd needs Kokkos >= 3.4 (found ${Kokkos_VERSION})")
endif()
find_package(KokkosKernels REQUIRED CONFIG)

# FIXME_DEBIAN: Trilinos 13.2's Kokkos::kokkos lists <prefix>/include, which does not exist
# (the headers are in include/trilinos); CMake refuses a target naming a missing directory.
if(TARGET Kokkos::kokkos)
  get_target_property(_kspd_kk_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  if(_kspd_kk_inc)
    set(_kspd_fixed_inc)
    foreach(_d IN LISTS _kspd_kk_inc)
      if(_d MATCHES "^\\$<" OR EXISTS "${_d}")
        list(APPEND _kspd_fixed_inc "${_d}")
      endif()
    endforeach()
    if(Kokkos_INCLUDE_DIRS)
      list(APPEND _kspd_fixed_inc ${Kokkos_INCLUDE_DIRS})
    endif()
    list(REMOVE_DUPLICATES _kspd_fixed_inc)
    set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kspd_fixed_inc}")
  endif()
endif()

if(NOT TARGET kspd::kokkos_all)
  add_library(kspd::kokkos_all INTERFACE IMPORTED)
  if(TARGET Kokkos::kokkoskernels)
    set_property(TARGET kspd::kokkos_all PROPERTY INTERFACE_LINK_LIBRARIES Kokkos::kokkoskernels Kokkos::kokkos)
  else()
    # FIXME_DEBIAN: Trilinos' Kokkos Kernels exports no Kokkos::kokkoskernels target.
    find_library(KSPD_TRILINOS_KOKKOSKERNELS_LIB trilinos_kokkoskernels
      HINTS ${KokkosKernels_LIBRARY_DIRS} REQUIRED)
    set_property(TARGET kspd::kokkos_all PROPERTY INTERFACE_LINK_LIBRARIES
      ${KSPD_TRILINOS_KOKKOSKERNELS_LIB} Kokkos::kokkos)
    set_property(TARGET kspd::kokkos_all PROPERTY INTERFACE_INCLUDE_DIRECTORIES ${KokkosKernels_INCLUDE_DIRS})
  endif()
endif()

# Kokkos_ENABLE_CUDA is set by Kokkos 4.x configs; Trilinos' 3.4 config may not set it at all.
if(NOT DEFINED Kokkos_ENABLE_CUDA)
  set(Kokkos_ENABLE_CUDA OFF)
  if(Kokkos_DEVICES MATCHES "CUDA")
    set(Kokkos_ENABLE_CUDA ON)
  endif()
endif()
