# Finds Metis 5 (Debian: libmetis-dev). Defines Metis::Metis.
find_path(Metis_INCLUDE_DIR metis.h PATH_SUFFIXES metis)
find_library(Metis_LIBRARY metis)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Metis REQUIRED_VARS Metis_LIBRARY Metis_INCLUDE_DIR)
if(Metis_FOUND AND NOT TARGET Metis::Metis)
  add_library(Metis::Metis UNKNOWN IMPORTED)
  set_target_properties(Metis::Metis PROPERTIES IMPORTED_LOCATION "${Metis_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Metis_INCLUDE_DIR}")
endif()
mark_as_advanced(Metis_INCLUDE_DIR Metis_LIBRARY)
