# cmake --install: the library (shared, and static with SIMDEX_STATIC), the headers, a CMake package
# (find_package(simdex 0.2 REQUIRED) -> simdex::simdex), a pkg-config file, the simdex command with
# its man page, --help text and bash completion, and the documentation. Two components, one per Debian package:
#   library  libsimdex: libraries, headers, CMake and pkg-config files, share/doc/libsimdex
#   cli      simdex: bin/simdex, the man page, bash completion, share/doc/simdex (README, CHANGELOG,
#            spec/, help)
include(CMakePackageConfigHelpers)
set(SIMDEX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/simdex)

install(TARGETS simdex EXPORT simdexTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT library)
install(EXPORT simdexTargets NAMESPACE simdex:: DESTINATION ${SIMDEX_CMAKE_DIR} COMPONENT library)
if(TARGET simdex_static)
  # Its own export set: a program that links the shared library needs none of its dependencies.
  install(TARGETS simdex_static EXPORT simdexStaticTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library)
  install(EXPORT simdexStaticTargets NAMESPACE simdex:: DESTINATION ${SIMDEX_CMAKE_DIR} COMPONENT library)
endif()
install(DIRECTORY include/simdex DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT library
        FILES_MATCHING PATTERN "*.h")

# The CMake package. While simdex is 0.x a minor version may break the API (README "Versioning"),
# so find_package(simdex 0.1) accepts 0.1.x only.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_simdex_compatibility SameMinorVersion)
else()
  set(_simdex_compatibility SameMajorVersion)
endif()
set(SIMDEX_CONFIG_TEXT ${SIMDEX_TEXT})
set(SIMDEX_CONFIG_SHARED ${SIMDEX_SHARED})
configure_package_config_file(cmake/simdexConfig.cmake.in ${PROJECT_BINARY_DIR}/simdexConfig.cmake
                              INSTALL_DESTINATION ${SIMDEX_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/simdexConfigVersion.cmake
                                 COMPATIBILITY ${_simdex_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/simdexConfig.cmake ${PROJECT_BINARY_DIR}/simdexConfigVersion.cmake
        DESTINATION ${SIMDEX_CMAKE_DIR} COMPONENT library)

# pkg-config, relocatable: the prefix is found from the .pc file's own place (${pcfiledir}), so the
# tree works wherever it is unpacked (dpkg -x into a scratch directory).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SIMDEX_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(SIMDEX_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _simdex_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  set(SIMDEX_PC_PREFIX "\${pcfiledir}/${_simdex_up}")
  set(SIMDEX_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(SIMDEX_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(SIMDEX_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(SIMDEX_PC_REQUIRES_PRIVATE "zlib libzstd libisal")  # (xxHash is compiled in: format/xxh3.h)
if(SIMDEX_TEXT)
  string(APPEND SIMDEX_PC_REQUIRES_PRIVATE " icu-uc simdjson")
endif()
configure_file(cmake/simdex.pc.in ${PROJECT_BINARY_DIR}/simdex.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/simdex.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT library)
install(FILES LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/libsimdex COMPONENT library)

if(TARGET simdex_cli)
  install(TARGETS simdex_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
  # The man page and a text file of every command's --help, made by running the command.
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/simdex.1 ${PROJECT_BINARY_DIR}/simdex-help.txt
           ${PROJECT_BINARY_DIR}/simdex.bash-completion
    COMMAND ${CMAKE_COMMAND} -DSIMDEX=$<TARGET_FILE:simdex_cli> -DVERSION=${PROJECT_VERSION}
            -DOUT_DIR=${PROJECT_BINARY_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/cli_help.cmake
    DEPENDS simdex_cli ${PROJECT_SOURCE_DIR}/cmake/cli_help.cmake
    COMMENT "simdex.1, simdex-help.txt and simdex.bash-completion from simdex --help")
  add_custom_target(simdex_cli_help ALL DEPENDS ${PROJECT_BINARY_DIR}/simdex.1 ${PROJECT_BINARY_DIR}/simdex-help.txt)
  install(FILES ${PROJECT_BINARY_DIR}/simdex.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
  # Where bash-completion looks for a command's completion on first use.
  install(FILES ${PROJECT_BINARY_DIR}/simdex.bash-completion DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions
          RENAME simdex COMPONENT cli)
  install(FILES LICENSE README.md CHANGELOG.md ${PROJECT_BINARY_DIR}/simdex-help.txt
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/simdex COMPONENT cli)
  install(DIRECTORY spec/ DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/simdex/spec COMPONENT cli
          PATTERN "__pycache__" EXCLUDE)
endif()
