// Embedded problem generators (grid Laplacians, 3-D Q1 elasticity) and the host symv.
#include "kspd_sparse_generate.hpp"

#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

#include "kspd_error.hpp"

namespace kspd::sparse {

namespace {

void require_dims(const char* who, size_type nx, size_type ny, size_type nz) {
  KSPD_REQUIRE(nx >= 0 && ny >= 0 && nz >= 0, InvalidArgument,
               who << ": grid sizes must be >= 0, got " << nx << " x " << ny << " x " << nz);
  // The row count must fit a signed 64-bit integer with room for 3 dof per node.
  const long double n = (long double)nx * ny * nz;
  KSPD_REQUIRE(n * 3 < 4.0e18L, InvalidArgument, who << ": grid " << nx << " x " << ny << " x " << nz << " is too large");
}

std::string grid_name(const char* kind, size_type nx, size_type ny, size_type nz = -1) {
  std::ostringstream os;
  os << kind << '_' << nx << 'x' << ny;
  if (nz >= 0) os << 'x' << nz;
  return os.str();
}

// Stencil Laplacian on a grid of nx*ny*nz points (nz = 1 for 2-D): diagonal `diag`,
// the (up to 3) forward neighbours -1.
template <class Scalar>
CscMatrix<Scalar> grid_laplacian(size_type nx, size_type ny, size_type nz, Scalar diag) {
  CscMatrix<Scalar> A;
  const size_type n = nx * ny * nz;
  A.n = n;
  A.colptr.assign(size_t(n + 1), 0);
  const size_type sxy = nx * ny;
  // Count: the diagonal plus each forward neighbour that lies in the grid.
  size_type p = 0;
  for (size_type k = 0; k < nz; ++k)
    for (size_type j = 0; j < ny; ++j)
      for (size_type i = 0; i < nx; ++i, ++p)
        A.colptr[size_t(p + 1)] = 1 + (i + 1 < nx) + (j + 1 < ny) + (k + 1 < nz);
  for (size_type c = 0; c < n; ++c) A.colptr[size_t(c + 1)] += A.colptr[size_t(c)];
  A.rowind.resize(size_t(A.nnz()));
  A.values.resize(size_t(A.nnz()));
  p = 0;
  for (size_type k = 0; k < nz; ++k)
    for (size_type j = 0; j < ny; ++j)
      for (size_type i = 0; i < nx; ++i, ++p) {
        size_type q = A.colptr[size_t(p)];
        A.rowind[size_t(q)] = p;
        A.values[size_t(q++)] = diag;
        // Rows increase: p+1 < p+nx < p+nx*ny.
        if (i + 1 < nx) { A.rowind[size_t(q)] = p + 1; A.values[size_t(q++)] = Scalar(-1); }
        if (j + 1 < ny) { A.rowind[size_t(q)] = p + nx; A.values[size_t(q++)] = Scalar(-1); }
        if (k + 1 < nz) { A.rowind[size_t(q)] = p + sxy; A.values[size_t(q++)] = Scalar(-1); }
      }
  return A;
}

using Block = std::array<std::array<double, 3>, 3>;

// The 27 node-coupling blocks K_d (row node a, column node a+d), d = (dx,dy,dz) in
// {-1,0,1}^3 at index (dx+1) + 3(dy+1) + 9(dz+1), of the clamped Q1 elasticity stiffness
// in the rotated displacement frame (see the header).
std::array<Block, 27> elasticity_blocks() {
  const double E = 1.0, nu = 0.3;
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  double D[6][6] = {};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) D[a][b] = lambda + (a == b ? 2 * mu : 0.0);
  for (int a = 3; a < 6; ++a) D[a][a] = mu;

  // Element stiffness of an hx x hy x hz brick, local node a = ax + 2ay + 4az, 2x2x2 Gauss
  // points. Unequal edges break the cubic symmetry that would make K_0 a multiple of I
  // (which no rotation makes dense).
  double Ke[24][24] = {};
  const double h[3] = {1.0, 1.25, 0.8};
  const double g[2] = {0.5 - 0.5 / std::sqrt(3.0), 0.5 + 0.5 / std::sqrt(3.0)};
  for (int gz = 0; gz < 2; ++gz)
    for (int gy = 0; gy < 2; ++gy)
      for (int gx = 0; gx < 2; ++gx) {
        const double x[3] = {g[gx], g[gy], g[gz]};
        double B[6][24] = {};
        for (int a = 0; a < 8; ++a) {
          const int bit[3] = {a & 1, (a >> 1) & 1, (a >> 2) & 1};
          double f[3], df[3];
          for (int c = 0; c < 3; ++c) {
            f[c] = bit[c] ? x[c] : 1 - x[c];
            df[c] = bit[c] ? 1.0 : -1.0;
          }
          const double dN[3] = {df[0] * f[1] * f[2] / h[0], f[0] * df[1] * f[2] / h[1], f[0] * f[1] * df[2] / h[2]};
          B[0][3 * a + 0] = dN[0];
          B[1][3 * a + 1] = dN[1];
          B[2][3 * a + 2] = dN[2];
          B[3][3 * a + 0] = dN[1], B[3][3 * a + 1] = dN[0];
          B[4][3 * a + 1] = dN[2], B[4][3 * a + 2] = dN[1];
          B[5][3 * a + 0] = dN[2], B[5][3 * a + 2] = dN[0];
        }
        double DB[6][24];
        for (int r = 0; r < 6; ++r)
          for (int c = 0; c < 24; ++c) {
            double s = 0;
            for (int t = 0; t < 6; ++t) s += D[r][t] * B[t][c];
            DB[r][c] = s;
          }
        for (int r = 0; r < 24; ++r)
          for (int c = 0; c < 24; ++c) {
            double s = 0;
            for (int t = 0; t < 6; ++t) s += B[t][r] * DB[t][c];
            Ke[r][c] += s * h[0] * h[1] * h[2] / 8.0;  // weight of each point: volume / 8
          }
      }

  // A fixed generic rotation R = Rz(a) Ry(b) Rx(c).
  const double a = 0.3, b = 0.7, c = 1.1;
  const double Rz[3][3] = {{std::cos(a), -std::sin(a), 0}, {std::sin(a), std::cos(a), 0}, {0, 0, 1}};
  const double Ry[3][3] = {{std::cos(b), 0, std::sin(b)}, {0, 1, 0}, {-std::sin(b), 0, std::cos(b)}};
  const double Rx[3][3] = {{1, 0, 0}, {0, std::cos(c), -std::sin(c)}, {0, std::sin(c), std::cos(c)}};
  double T[3][3], R[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      T[i][j] = 0;
      for (int k = 0; k < 3; ++k) T[i][j] += Rz[i][k] * Ry[k][j];
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      R[i][j] = 0;
      for (int k = 0; k < 3; ++k) R[i][j] += T[i][k] * Rx[k][j];
    }

  std::array<Block, 27> K{};
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        Block S{};
        // Sum over the elements holding both nodes: a at local s, a+d at local s+d.
        for (int sz = 0; sz < 2; ++sz)
          for (int sy = 0; sy < 2; ++sy)
            for (int sx = 0; sx < 2; ++sx) {
              const int tx = sx + dx, ty = sy + dy, tz = sz + dz;
              if (tx < 0 || tx > 1 || ty < 0 || ty > 1 || tz < 0 || tz > 1) continue;
              const int la = sx + 2 * sy + 4 * sz, lb = tx + 2 * ty + 4 * tz;
              for (int r = 0; r < 3; ++r)
                for (int q = 0; q < 3; ++q) S[r][q] += Ke[3 * la + r][3 * lb + q];
            }
        Block RS{}, RSRt{};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) RS[i][j] += R[i][k] * S[k][j];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) RSRt[i][j] += RS[i][k] * R[j][k];
        K[(dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)] = RSRt;
      }
  return K;
}

// The 13 forward offsets (linear offset > 0) in increasing linear order for any grid:
// lexicographic in (dz, dy, dx).
struct Offset {
  int dx, dy, dz;
};
std::array<Offset, 13> forward_offsets() {
  std::array<Offset, 13> o{};
  int m = 0;
  for (int dz = 0; dz <= 1; ++dz)
    for (int dy = (dz == 0 ? 0 : -1); dy <= 1; ++dy)
      for (int dx = (dz == 0 && dy == 0 ? 1 : -1); dx <= 1; ++dx) o[size_t(m++)] = {dx, dy, dz};
  return o;
}

inline bool in_range(size_type i, int d, size_type n) { return i + d >= 0 && i + d < n; }

}  // namespace

size_type laplacian_2d_nnz(size_type nx, size_type ny) {
  require_dims("kspd::sparse::laplacian_2d_nnz", nx, ny, 1);
  if (nx == 0 || ny == 0) return 0;
  return nx * ny + (nx - 1) * ny + nx * (ny - 1);
}
size_type laplacian_3d_nnz(size_type nx, size_type ny, size_type nz) {
  require_dims("kspd::sparse::laplacian_3d_nnz", nx, ny, nz);
  if (nx == 0 || ny == 0 || nz == 0) return 0;
  return nx * ny * nz + (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
}
size_type elasticity_3d_nnz(size_type nx, size_type ny, size_type nz) {
  require_dims("kspd::sparse::elasticity_3d_nnz", nx, ny, nz);
  if (nx == 0 || ny == 0 || nz == 0) return 0;
  size_type pairs = 0;
  for (const Offset& o : forward_offsets()) {
    const size_type mx = nx - std::abs(o.dx), my = ny - std::abs(o.dy), mz = nz - std::abs(o.dz);
    if (mx > 0 && my > 0 && mz > 0) pairs += mx * my * mz;
  }
  return 6 * nx * ny * nz + 9 * pairs;
}

template <class Scalar>
CscMatrix<Scalar> laplacian_2d(size_type nx, size_type ny) {
  require_dims("kspd::sparse::laplacian_2d", nx, ny, 1);
  auto A = grid_laplacian<Scalar>(nx, ny, 1, Scalar(4));
  A.name = grid_name("laplacian_2d", nx, ny);
  return A;
}

template <class Scalar>
CscMatrix<Scalar> laplacian_3d(size_type nx, size_type ny, size_type nz) {
  require_dims("kspd::sparse::laplacian_3d", nx, ny, nz);
  auto A = grid_laplacian<Scalar>(nx, ny, nz, Scalar(6));
  A.name = grid_name("laplacian_3d", nx, ny, nz);
  return A;
}

template <class Scalar>
CscMatrix<Scalar> elasticity_3d(size_type nx, size_type ny, size_type nz) {
  require_dims("kspd::sparse::elasticity_3d", nx, ny, nz);
  const std::array<Block, 27> K = elasticity_blocks();
  const std::array<Offset, 13> fwd = forward_offsets();
  CscMatrix<Scalar> A;
  const size_type nodes = nx * ny * nz, n = 3 * nodes;
  A.n = n;
  A.name = grid_name("elasticity_3d", nx, ny, nz);
  A.colptr.assign(size_t(n + 1), 0);
  // Count: column 3p+c holds rows 3p+c..3p+2 and 3 rows per forward neighbour.
  size_type p = 0;
  for (size_type k = 0; k < nz; ++k)
    for (size_type j = 0; j < ny; ++j)
      for (size_type i = 0; i < nx; ++i, ++p) {
        size_type nb = 0;
        for (const Offset& o : fwd) nb += in_range(i, o.dx, nx) && in_range(j, o.dy, ny) && in_range(k, o.dz, nz);
        for (int c = 0; c < 3; ++c) A.colptr[size_t(3 * p + c + 1)] = (3 - c) + 3 * nb;
      }
  for (size_type c = 0; c < n; ++c) A.colptr[size_t(c + 1)] += A.colptr[size_t(c)];
  A.rowind.resize(size_t(A.nnz()));
  A.values.resize(size_t(A.nnz()));

  // Column node p, row node q = p + e (e forward): entry (3q+r, 3p+c) is block (q, p) =
  // K_{p-q} = K_{-e}, whose (r, c) entry is K_e(c, r).
  const Block& K0 = K[13];
  p = 0;
  for (size_type k = 0; k < nz; ++k)
    for (size_type j = 0; j < ny; ++j)
      for (size_type i = 0; i < nx; ++i, ++p) {
        size_type q[3];
        for (int c = 0; c < 3; ++c) q[c] = A.colptr[size_t(3 * p + c)];
        for (int c = 0; c < 3; ++c)
          for (int r = c; r < 3; ++r) {
            A.rowind[size_t(q[c])] = 3 * p + r;
            A.values[size_t(q[c]++)] = Scalar(K0[size_t(r)][size_t(c)]);
          }
        for (const Offset& o : fwd) {
          if (!(in_range(i, o.dx, nx) && in_range(j, o.dy, ny) && in_range(k, o.dz, nz))) continue;
          const size_type nbr = p + o.dx + nx * (o.dy + ny * o.dz);
          const Block& Ke = K[size_t((o.dx + 1) + 3 * (o.dy + 1) + 9 * (o.dz + 1))];
          for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) {
              A.rowind[size_t(q[c])] = 3 * nbr + r;
              A.values[size_t(q[c]++)] = Scalar(Ke[size_t(c)][size_t(r)]);
            }
        }
      }
  return A;
}

template <class Scalar>
void symv(const CscMatrix<Scalar>& A, const Scalar* x, Scalar* y) {
  const size_type n = A.n;
  std::vector<double> acc(size_t(n), 0.0);
  for (size_type j = 0; j < n; ++j) {
    const double xj = double(x[j]);
    double sj = 0;
    for (size_type q = A.colptr[size_t(j)]; q < A.colptr[size_t(j + 1)]; ++q) {
      const size_type i = A.rowind[size_t(q)];
      const double a = double(A.values[size_t(q)]);
      if (i == j) {
        sj += a * xj;
      } else {
        acc[size_t(i)] += a * xj;
        sj += a * double(x[i]);
      }
    }
    acc[size_t(j)] += sj;
  }
  for (size_type i = 0; i < n; ++i) y[i] = Scalar(acc[size_t(i)]);
}

template <class Scalar>
void symv(const CscMatrix<Scalar>& A, const std::vector<Scalar>& x, std::vector<Scalar>& y) {
  KSPD_REQUIRE(size_type(x.size()) == A.n, DimensionMismatch,
               "kspd::sparse::symv: x has " << x.size() << " entries, A has " << A.n << " rows");
  y.resize(size_t(A.n));
  symv(A, x.data(), y.data());
}

template <class Scalar>
std::vector<Scalar> known_solution_rhs(const CscMatrix<Scalar>& A, const std::vector<Scalar>& X,
                                       size_type nrhs) {
  KSPD_REQUIRE(nrhs >= 0, InvalidArgument, "kspd::sparse::known_solution_rhs: nrhs = " << nrhs << " < 0");
  KSPD_REQUIRE(size_type(X.size()) == A.n * nrhs, DimensionMismatch,
               "kspd::sparse::known_solution_rhs: X has " << X.size() << " entries, expected A.n * nrhs = "
                                                          << A.n << " * " << nrhs);
  std::vector<Scalar> B(X.size());
  for (size_type r = 0; r < nrhs; ++r) symv(A, X.data() + r * A.n, B.data() + r * A.n);
  return B;
}

template <class Scalar>
void check_csc(const CscMatrix<Scalar>& A) {
  const char* who = "kspd::sparse::check_csc";
  KSPD_REQUIRE(A.n >= 0, InvalidArgument, who << ": n = " << A.n << " < 0");
  KSPD_REQUIRE(size_type(A.colptr.size()) == A.n + 1, InvalidArgument,
               who << ": colptr has " << A.colptr.size() << " entries, expected n + 1 = " << A.n + 1);
  KSPD_REQUIRE(A.colptr[0] == 0, InvalidArgument, who << ": colptr[0] = " << A.colptr[0] << ", expected 0");
  KSPD_REQUIRE(size_type(A.rowind.size()) == A.nnz() && size_type(A.values.size()) == A.nnz(), InvalidArgument,
               who << ": rowind/values have " << A.rowind.size() << "/" << A.values.size()
                   << " entries, colptr[n] = " << A.nnz());
  for (size_type j = 0; j < A.n; ++j) {
    const size_type b = A.colptr[size_t(j)], e = A.colptr[size_t(j + 1)];
    KSPD_REQUIRE(b <= e, InvalidArgument, who << ": colptr decreases at column " << j);
    for (size_type q = b; q < e; ++q) {
      const size_type i = A.rowind[size_t(q)];
      KSPD_REQUIRE(i >= j && i < A.n, InvalidArgument,
                   who << ": row " << i << " in column " << j << " is outside the lower triangle [" << j << ", "
                       << A.n << ")");
      KSPD_REQUIRE(q == b || A.rowind[size_t(q - 1)] < i, InvalidArgument,
                   who << ": rows of column " << j << " are not sorted and unique at row " << i);
    }
  }
}

#define KSPD_SPARSE_GENERATE_INST(S)                                                                          \
  template CscMatrix<S> laplacian_2d<S>(size_type, size_type);                                              \
  template CscMatrix<S> laplacian_3d<S>(size_type, size_type, size_type);                                   \
  template CscMatrix<S> elasticity_3d<S>(size_type, size_type, size_type);                                  \
  template void symv<S>(const CscMatrix<S>&, const S*, S*);                                                 \
  template void symv<S>(const CscMatrix<S>&, const std::vector<S>&, std::vector<S>&);                       \
  template std::vector<S> known_solution_rhs<S>(const CscMatrix<S>&, const std::vector<S>&, size_type);     \
  template void check_csc<S>(const CscMatrix<S>&);
KSPD_SPARSE_GENERATE_INST(float)
KSPD_SPARSE_GENERATE_INST(double)
#undef KSPD_SPARSE_GENERATE_INST

}  // namespace kspd::sparse
