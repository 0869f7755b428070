# The library users link: simdex::simdex, made of the parts the subdirectories build (format, writer,
# reader, io and, with SIMDEX_TEXT, fingerprint and documents). Tests, the CLI, fuzzers and benches
# keep linking those parts (static libraries) since they test or use internals; the public targets
# take the same object files, so nothing is compiled twice.
#   simdex          shared (SIMDEX_SHARED) or static; SONAME libsimdex.so.0.MINOR while simdex is 0.x
#   simdex_static   with SIMDEX_SHARED and SIMDEX_STATIC, the static library too (libsimdex.a)
# Only the public API (SIMDEX_EXPORT in include/simdex/) is exported from the shared library.
include(GNUInstallDirs)
find_package(Threads REQUIRED)

target_sources(simdex_format PRIVATE ${PROJECT_SOURCE_DIR}/format/version.cpp)
set(SIMDEX_PARTS simdex_error simdex_format simdex_fingerprint_settings simdex_writer simdex_file_reader simdex_set
  simdex_io)
if(SIMDEX_TEXT)
  list(APPEND SIMDEX_PARTS simdex_fingerprint simdex_documents simdex_dedup)
endif()
# PIC: the parts end up in a shared library, and a static libsimdex.a must link into one (a Python
# module). Hidden visibility: only SIMDEX_EXPORT declarations leave libsimdex.so.
set_target_properties(${SIMDEX_PARTS} PROPERTIES
  POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

# What a program linking the static library also needs (the shared one records it itself; xxHash is
# compiled in, format/xxh3.h).
set(SIMDEX_LINK_DEPENDENCIES ZLIB::ZLIB PkgConfig::ZSTD PkgConfig::ISAL Threads::Threads)
if(SIMDEX_TEXT)
  list(APPEND SIMDEX_LINK_DEPENDENCIES ICU::uc ICU::data simdjson::simdjson)
endif()

# simdex_public_library(TARGET TYPE): a library of TYPE from the parts' objects, with the public
# headers and C++20 as its usage requirements.
function(simdex_public_library target type)
  set(objects)
  foreach(part IN LISTS SIMDEX_PARTS)
    list(APPEND objects $<TARGET_OBJECTS:${part}>)
  endforeach()
  add_library(${target} ${type} ${objects})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME simdex LINKER_LANGUAGE CXX POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PRIVATE ${SIMDEX_LINK_DEPENDENCIES})
endfunction()

if(SIMDEX_SHARED)
  simdex_public_library(simdex SHARED)
  # ABI: 0.MINOR while simdex is 0.x (README "Versioning"). The version script keeps the dynamic
  # symbol table to simdex's own: the std:: template instances libstdc++ marks visible stay local.
  set_target_properties(simdex PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/simdex.map)
  target_link_options(simdex PRIVATE "LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/simdex.map")
  if(SIMDEX_STATIC)
    simdex_public_library(simdex_static STATIC)
    add_library(simdex::simdex_static ALIAS simdex_static)
  endif()
else()
  simdex_public_library(simdex STATIC)
endif()
add_library(simdex::simdex ALIAS simdex)
