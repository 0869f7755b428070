#!/usr/bin/env bash
# Builds and runs the consumer program (main.cpp) the ways a project adopts simdex, out of tree:
#   run.sh install BUILD_DIR PREFIX     cmake --install BUILD_DIR into the scratch PREFIX (ctest fixture)
#   run.sh cmake PREFIX WORK            find_package(simdex 0.2 REQUIRED) against PREFIX: shared, then static
#                                       (also linked into a shared object: module.cpp)
#   run.sh pkgconfig PREFIX WORK        g++ $(pkg-config --cflags --libs simdex) against PREFIX
#   run.sh subdir SOURCE_DIR WORK       add_subdirectory(SOURCE_DIR) with doctest, Google Benchmark,
#                                       CLI11 and fmt made unfindable: the library needs none of them
#   run.sh deb BUILD_DIR WORK           cpack -G DEB in BUILD_DIR, dpkg -x both packages into WORK/root
#                                       (never into /usr), find_package against that tree
# Each mode fails unless the consumer builds, runs and prints "CONSUMER OK".
# Environment: CXX (the compiler), SIMDEX_LAUNCHER (e.g. ccache), both optional.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1
cxx=${CXX:-c++}
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
launcher=(); [ -n "${SIMDEX_LAUNCHER:-}" ] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$SIMDEX_LAUNCHER")

# check BINARY INDEX: runs the consumer and checks its verdict line.
check() {
  local output
  output=$("$1" "$2")
  echo "$output"
  grep -q "CONSUMER OK$" <<<"$output" || { echo "consumer: wrong output" >&2; exit 1; }
}

# cmake_consumer WORK_DIR CMAKE_ARGS...: configures and builds the consumer project, quietly.
cmake_consumer() {
  local work=$1; shift
  rm -rf "$work"; mkdir -p "$(dirname "$work")"
  cmake -S "$here" -B "$work" "${gen[@]}" "${launcher[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=Release "$@" >"$work.configure.log" 2>&1 ||
    { cat "$work.configure.log" >&2; echo "consumer: configure failed" >&2; exit 1; }
  cmake --build "$work" >"$work.build.log" 2>&1 ||
    { tail -50 "$work.build.log" >&2; echo "consumer: build failed" >&2; exit 1; }
}

case "$mode" in
  install)
    build=$2 prefix=$3
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix" >/dev/null
    echo "installed into $prefix:"; (cd "$prefix" && find . -type f | sort)
    ;;
  cmake)
    prefix=$2 work=$3
    cmake_consumer "$work/shared" -DCMAKE_PREFIX_PATH="$prefix"
    # ldd's output kept first: `ldd | grep -q` fails under pipefail when grep stops reading early.
    ldd "$work/shared/simdex_consumer" >"$work/shared.ldd"
    grep -q "libsimdex.so.0" "$work/shared.ldd" ||
      { echo "consumer: the shared build does not load libsimdex.so.0.*" >&2; exit 1; }
    check "$work/shared/simdex_consumer" "$work/shared.sdx"
    cmake_consumer "$work/static" -DCMAKE_PREFIX_PATH="$prefix" -DSIMDEX_CONSUMER_STATIC=ON
    ldd "$work/static/simdex_consumer" >"$work/static.ldd"
    if grep -q libsimdex "$work/static.ldd"; then
      echo "consumer: the static build loads libsimdex.so" >&2; exit 1
    fi
    check "$work/static/simdex_consumer" "$work/static.sdx"
    [ -f "$work/static/libsimdex_consumer_module.so" ] || { echo "consumer: no module linked" >&2; exit 1; }
    ;;
  pkgconfig)
    prefix=$2 work=$3
    rm -rf "$work"; mkdir -p "$work"
    pcdir=$(dirname "$(find "$prefix" -name simdex.pc | head -1)")
    export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    echo "pkg-config simdex $(pkg-config --modversion simdex): $(pkg-config --cflags --libs simdex)"
    libdir=$(pkg-config --variable=libdir simdex)
    # shellcheck disable=SC2046
    # With the warnings adopters' builds turn on: the public headers must pass them.
    "$cxx" -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror "$here/main.cpp" -o "$work/simdex_consumer" \
      $(pkg-config --cflags --libs simdex) \
      -Wl,-rpath,"$libdir"
    check "$work/simdex_consumer" "$work/consumer.sdx"
    ;;
  subdir)
    source=$2 work=$3
    # Unoptimized (a vendoring project's flags are its own): the library compiles in a fraction of
    # the time of -O3, and the test is whether it configures, builds and links, not how fast it runs.
    cmake_consumer "$work/build" -DCMAKE_BUILD_TYPE= -DSIMDEX_CONSUMER_MODE=subdir -DSIMDEX_SOURCE_DIR="$source" \
      -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
      -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
    # Only the library was built: no test, bench or CLI target exists in the subproject.
    if cmake --build "$work/build" --target help | grep -E -q "^(index_test|simdex_cli|compare_bench)[:]"; then
      echo "consumer: the subproject defines test, CLI or bench targets" >&2; exit 1
    fi
    check "$work/build/simdex_consumer" "$work/consumer.sdx"
    ;;
  deb)
    build=$2 work=$3
    rm -rf "$work"; mkdir -p "$work/root"
    (cd "$build" && cpack -G DEB -B "$work/packages" >"$work/cpack.log" 2>&1) ||
      { tail -40 "$work/cpack.log" >&2; echo "consumer: cpack failed" >&2; exit 1; }
    for package in libsimdex simdex; do
      deb=$(ls "$work/packages/${package}_"*.deb 2>/dev/null | head -1 || true)
      [ -n "$deb" ] || { echo "consumer: no $package package" >&2; ls "$work/packages" >&2; exit 1; }
      echo "== $(basename "$deb")"; dpkg-deb --field "$deb" Package Version Depends
      dpkg -x "$deb" "$work/root"
    done
    for file in usr/share/doc/libsimdex/LICENSE usr/share/doc/simdex/LICENSE usr/bin/simdex \
                usr/include/simdex/simdex.h usr/share/man/man1/simdex.1 \
                usr/share/bash-completion/completions/simdex; do
      [ -f "$work/root/$file" ] || { echo "consumer: $file missing from the packages" >&2; exit 1; }
    done
    "$work/root/usr/bin/simdex" --version
    cmake_consumer "$work/consumer" -DCMAKE_PREFIX_PATH="$work/root/usr"
    LD_LIBRARY_PATH=$(dirname "$(find "$work/root" -name 'libsimdex.so' | head -1)") \
      check "$work/consumer/simdex_consumer" "$work/consumer.sdx"
    ;;
  *) echo "usage: run.sh install|cmake|pkgconfig|subdir|deb ARGS" >&2; exit 2 ;;
esac
