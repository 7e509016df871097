# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe of DART-MPI: how a site would package it. Copy this file to
# <your spack repo>/packages/dart-mpi/package.py, set `url` to where the site keeps the
# release archive (`python -m build --sdist` makes dart_mpi-X.Y.Z.tar.gz) and add its
# checksum (`spack checksum dart-mpi` or `sha256sum dart_mpi-X.Y.Z.tar.gz`), then
#   spack install dart-mpi +fortran +python +hwloc ^mpich
#
# Spack is not available on the machines DART-MPI is developed and tested on, so this
# recipe has never been run by Spack: tests/python/test_packaging.py only parses it (with
# Python's ast) and checks its variants and version against the project's. It follows the
# CMake options of CMakeLists.txt and the Python build of pyproject.toml (docs/install.md).

from spack.package import *


class DartMpi(CMakePackage):
    """DART-MPI: a PGAS runtime on MPI-3 one-sided communication (the DART 3.2 C API),
    with a Fortran 2008 module and a Python package (dartpy), and distributed N-d arrays
    with halo updates."""

    # A site sets this to its copy of the release archive.
    url = "file:///path/to/dart_mpi-0.2.0.tar.gz"

    license("BSD-3-Clause")

    version("0.2.0")  # add sha256="..." of the archive the site keeps

    variant("fortran", default=True, description="Build the Fortran 2008 module `dart`")
    variant("python", default=False, description="Build and install the Python package dartpy")
    variant(
        "hwloc", default=True, description="NUMA and core detail of the locality API from hwloc"
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.18:", type="build")
    depends_on("mpi@3:")  # MPI-3 one-sided communication and shared memory
    depends_on("hwloc", when="+hwloc")
    depends_on("googletest", type="test")

    extends("python", when="+python")
    depends_on("python@3.9:", when="+python", type=("build", "run"))
    depends_on("py-pip", when="+python", type="build")
    depends_on("py-scikit-build-core@0.11:", when="+python", type="build")
    depends_on("py-pybind11@2.12:", when="+python", type="build")
    depends_on("py-numpy@1.21:", when="+python", type=("build", "run"))

    def _flavor(self):
        if self.spec.satisfies("^mpich"):
            return "mpich"
        if self.spec.satisfies("^openmpi"):
            return "openmpi"
        return ""  # CMake detects it from the MPI library's version string

    def cmake_args(self):
        mpi = self.spec["mpi"]
        args = [
            self.define("MPI_C_COMPILER", mpi.mpicc),
            self.define("MPI_CXX_COMPILER", mpi.mpicxx),
            self.define("DART_MPI_FLAVOR", self._flavor()),
            self.define_from_variant("DART_ENABLE_FORTRAN", "fortran"),
            self.define("DART_ENABLE_HWLOC", "ON" if self.spec.satisfies("+hwloc") else "OFF"),
            self.define("DART_BUILD_TESTS", self.run_tests),
            self.define("DART_WERROR", False),
        ]
        if self.spec.satisfies("+fortran"):
            args.append(self.define("MPI_Fortran_COMPILER", mpi.mpifc))
        return args

    @run_after("install")
    def install_dartpy(self):
        """The Python package is a second build of the same sources (scikit-build-core,
        the wheel layout: dartpy/_core and its own libdartmpi), as `pip install .`."""
        if not self.spec.satisfies("+python"):
            return
        with working_dir(self.stage.source_path):
            env = {"MPICC": self.spec["mpi"].mpicc}
            python = self.spec["python"].command
            python(
                "-m",
                "pip",
                "install",
                "--no-deps",
                "--no-build-isolation",
                f"--prefix={self.prefix}",
                ".",
                extra_env=env,
            )
