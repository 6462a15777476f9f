"""Bundles libshloc.so into the package at build time, so an installed shloc
needs no environment variables: the library of the checkout's build directory
($SHLOC_BUILD_DIR, default ../build) when it has one, else a fresh CMake build
into ../build-python.  Everything else is in pyproject.toml."""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _library():
    build = os.environ.get("SHLOC_BUILD_DIR", os.path.join(ROOT, "build"))
    lib = os.path.join(build, "libshloc.so")
    if os.path.exists(lib):
        return lib
    build = os.path.join(ROOT, "build-python")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release"])
    subprocess.check_call(["cmake", "--build", build, "--target", "shloc_shared", "-j", str(os.cpu_count() or 1)])
    return os.path.join(build, "libshloc.so")


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        # realpath: copy the library itself, not the libshloc.so symlink.
        shutil.copyfile(os.path.realpath(_library()), os.path.join(self.build_lib, "shloc", "libshloc.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution)
