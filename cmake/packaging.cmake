# cpack -G DEB (in the build directory) -> two packages from the install components:
#   libsimdex  the library (shared and static), headers, CMake and pkg-config files, LICENSE
#   simdex     the command, its man page, README, CHANGELOG, spec/, LICENSE
# The CLI links the library statically, so simdex does not depend on libsimdex.
set(CPACK_PACKAGE_NAME simdex)
set(CPACK_PACKAGE_VENDOR "simdex")
set(CPACK_PACKAGE_CONTACT "simdex developers <dev@simdex>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL library cli)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libsimdex)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_LIBRARY_DESCRIPTION "simdex library: ${PROJECT_DESCRIPTION}
 The shared and static libraries, the C++20 headers, the CMake package
 (find_package(simdex)) and the pkg-config file.")
# For the static library and pkg-config --cflags; a program linked to libsimdex.so needs none of them.
set(CPACK_DEBIAN_LIBRARY_PACKAGE_RECOMMENDS "zlib1g-dev, libzstd-dev, libisal-dev, libicu-dev, libsimdjson-dev, pkg-config")
set(CPACK_DEBIAN_CLI_PACKAGE_NAME simdex)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_DESCRIPTION "simdex command: ${PROJECT_DESCRIPTION}
 Build a compressed near-duplicate index from fingerprints or documents,
 query, verify and inspect it, and find all near-duplicate pairs and clusters.")
find_program(SIMDEX_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SIMDEX_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the binaries' shared libraries
endif()
include(CPack)
