include(CMakePackageConfigHelpers)
install(TARGETS kspd EXPORT kspdTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kspd)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/include/KSPD_Config.hpp ${CMAKE_CURRENT_BINARY_DIR}/include/kspd_build_info.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kspd)
install(EXPORT kspdTargets NAMESPACE kspd:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kspd)
configure_package_config_file(cmake/kspdConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/kspdConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kspd)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kspdConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kspdConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kspdConfigVersion.cmake
  cmake/kspd_find_kokkos.cmake cmake/FindMetis.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kspd)
