"""Builds simdex's compiled module with CMake (pyproject.toml has the package's metadata).

The CMake tree is build-pip/ (kept between installs: a rebuild compiles only what changed; set
CMAKE_CXX_COMPILER_LAUNCHER=ccache to share objects with other trees). CMAKE_BUILD_PARALLEL_LEVEL
sets the compile jobs (default: all cores)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    text = (ROOT / "include" / "simdex" / "version.h").read_text()
    return re.search(r'#define SIMDEX_VERSION_STRING "([^"]+)"', text).group(1)


class CMakeBuild(build_ext):
    """The one extension, simdex._simdex, is CMake's target simdex_python."""

    def build_extension(self, ext):
        try:
            import pybind11  # noqa: F401 - CMake finds it through this Python
        except ImportError:
            raise RuntimeError(
                "building simdex needs pybind11 in the Python that builds it: with --no-build-isolation, "
                "install it (Debian: apt-get install python3-pybind11) and make the venv with "
                "--system-site-packages; or let pip fetch it (no --no-build-isolation)") from None
        tree = ROOT / "build-pip"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
            "-DSIMDEX_BUILD_TESTS=OFF", "-DSIMDEX_BUILD_CLI=OFF", "-DSIMDEX_BUILD_BENCH=OFF",
            "-DSIMDEX_INSTALL=OFF", "-DSIMDEX_SHARED=OFF", "-DSIMDEX_BUILD_PYTHON=ON",
            f"-DSIMDEX_PYTHON={sys.executable}",
        ]
        if not (tree / "CMakeCache.txt").exists() and shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(tree), "--target", "simdex_python", "-j", jobs], check=True)
        built = sorted((tree / "python" / "simdex").glob("_simdex*.so"))
        if not built:
            raise RuntimeError(f"CMake built no _simdex module in {tree / 'python' / 'simdex'}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    version=version(),
    ext_modules=[Extension("simdex._simdex", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
