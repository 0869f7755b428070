# Reads SIMDEX_VERSION_MAJOR/MINOR/PATCH from include/simdex/version.h (the one place they live) into
# SIMDEX_VERSION, and checks SIMDEX_VERSION_STRING agrees with them.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../include/simdex/version.h" _simdex_version_lines
     REGEX "^#define SIMDEX_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
foreach(_part MAJOR MINOR PATCH STRING)
  string(REGEX MATCH "SIMDEX_VERSION_${_part} \"?([0-9.]+)\"?" _match "${_simdex_version_lines}")
  if(NOT _match)
    message(FATAL_ERROR "include/simdex/version.h: no SIMDEX_VERSION_${_part}")
  endif()
  set(_simdex_${_part} "${CMAKE_MATCH_1}")
endforeach()
set(SIMDEX_VERSION "${_simdex_MAJOR}.${_simdex_MINOR}.${_simdex_PATCH}")
if(NOT SIMDEX_VERSION STREQUAL _simdex_STRING)
  message(FATAL_ERROR "include/simdex/version.h: SIMDEX_VERSION_STRING \"${_simdex_STRING}\" is not ${SIMDEX_VERSION}")
endif()
