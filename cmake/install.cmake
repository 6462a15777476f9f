# `make install` / `cmake --install`: the CLI, both libraries, the public
# headers, a pkg-config file and a CMake package with the imported targets
# shloc::shloc (shared) and shloc::shloc_static.  OpenBLAS and LAPACKE are not
# link dependencies: libshloc opens them at run time (src/exec/kernels/mathlib.h).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(shloc_shared PROPERTIES EXPORT_NAME shloc)
set_target_properties(shloc PROPERTIES EXPORT_NAME shloc_static)
set(SHLOC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/shloc)

install(TARGETS shloc_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS shloc shloc_shared EXPORT shlocTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/shloc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT shlocTargets NAMESPACE shloc:: DESTINATION ${SHLOC_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/shlocConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/shlocConfig.cmake INSTALL_DESTINATION ${SHLOC_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/shlocConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/shlocConfig.cmake ${CMAKE_BINARY_DIR}/shlocConfigVersion.cmake
        DESTINATION ${SHLOC_CMAKE_DIR})

# The static library needs these at the client's link step; the shared one
# carries them itself (pkg-config --static, and shloc::shloc_static, add them).
set(SHLOC_PC_LIBS_PRIVATE "${OpenMP_C_FLAGS} -lm -ldl -lpthread")
configure_file(${CMAKE_CURRENT_LIST_DIR}/shloc.pc.in ${CMAKE_BINARY_DIR}/shloc.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/shloc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
