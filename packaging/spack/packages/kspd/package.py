# Spack recipe for kspd, following the builtin kokkos-kernels and arborx recipes: a CMake
# package whose CUDA variant and cuda_arch are passed through to Kokkos and Kokkos Kernels
# (one architecture for the whole stack). Use it from a local repository:
#   spack repo add packaging/spack            # (the directory holding repo.yaml)
#   spack info kspd && spack spec kspd +cuda cuda_arch=90
#   spack develop --path $PWD kspd@main && spack install kspd +cuda cuda_arch=90
# Checked with `spack info kspd` on Spack 0.23.0.dev0 (perf_tests/results/spack-check-2026-11-24.md);
# `spack spec` needs the clingo concretizer, which could not be bootstrapped offline.

from spack.package import *


class Kspd(CMakePackage, CudaPackage):
    """Kokkos-portable C++17 SPD and triangular linear algebra: recursive dense kernels,
    Rectangular Full Packed matrices, batched tiny problems and a supernodal sparse Cholesky
    (single process, MPI, and an Amesos2 adapter)."""

    # kspd has no public repository and no LICENSE file yet, so the recipe names neither a
    # homepage, a download address nor a license (none is invented here). Until it has them,
    # it builds from a checkout: `spack develop --path /path/to/kspd kspd@=main`. Once there
    # is a repository: git = "<its address>" and version("main", branch="main").

    variant("mpi", default=True, description="Distributed sparse Cholesky over MPI")
    variant("metis", default=True, description="Metis nested-dissection ordering")
    variant("zlib", default=True, description="Read gzip-compressed Matrix Market files")
    variant("trilinos", default=False, description="Amesos2 adapter (kspd::amesos2), needs +mpi")
    variant("tests", default=False, description="Build the unit tests, benchmarks and examples")

    conflicts("+trilinos", when="~mpi", msg="the Amesos2 adapter gathers over MPI")

    depends_on("cxx", type="build")
    depends_on("c", type="build")
    depends_on("cmake@3.16:", type="build")
    depends_on("kokkos@3.4:")
    depends_on("kokkos-kernels@3.4:")
    depends_on("lapack")
    depends_on("blas")
    depends_on("mpi", when="+mpi")
    depends_on("metis@5:", when="+metis")
    depends_on("zlib-api", when="+zlib")
    depends_on("trilinos@13.2: +amesos2 +tpetra +mpi", when="+trilinos")
    depends_on("googletest", type="build", when="+tests")
    depends_on("benchmark", type="build", when="+tests")

    # CUDA: Kokkos with the CUDA backend and lambdas, Kokkos Kernels with cuBLAS/cuSOLVER,
    # all three for the same architecture (as arborx and kokkos-kernels pass cuda_arch on).
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    depends_on("kokkos-kernels+cuda+cublas+cusolver", when="+cuda")
    depends_on("kokkos~cuda", when="~cuda")
    # Kokkos Kernels is a CudaPackage of its own and shares the kokkos node: both get kspd's
    # cuda_arch (a nested "kokkos-kernels ^kokkos cuda_arch=..." is rejected by `spack audit`).
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
        depends_on(f"kokkos-kernels cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    conflicts("+cuda", when="cuda_arch=none", msg="give the GPU architecture: +cuda cuda_arch=90")
    # CUDA 13 needs Kokkos >= 4.7.01 (top README).
    conflicts("^cuda@13:", when="+cuda ^kokkos@:4.7.00")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("CMAKE_CXX_STANDARD", "17"),
            self.define_from_variant("KSPD_ENABLE_MPI", "mpi"),
            self.define_from_variant("KSPD_ENABLE_METIS", "metis"),
            self.define_from_variant("KSPD_ENABLE_ZLIB", "zlib"),
            self.define_from_variant("KSPD_ENABLE_TRILINOS", "trilinos"),
            self.define_from_variant("KSPD_ENABLE_TESTS", "tests"),
            self.define_from_variant("KSPD_ENABLE_PERF_TESTS", "tests"),
            self.define_from_variant("KSPD_ENABLE_EXAMPLES", "tests"),
            self.define_from_variant("KSPD_ENABLE_CUDA_TPLS", "cuda"),
        ]
        if spec.satisfies("+cuda"):
            # Kokkos' nvcc_wrapper compiles the CUDA translation units (as arborx does).
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args
