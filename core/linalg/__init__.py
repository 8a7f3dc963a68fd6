"""paddle.linalg as ``core.linalg``: products, norms, inverses, determinants, solves,
decompositions and covariances, batched over leading dimensions as Paddle's [..., n, n].

- ``products``: ``dot``, ``mm``, ``bmm``, ``multi_dot`` (also ``cross``, ``outer``, ``inner``,
  and ``kron``, which is ``core.kron`` only);
- ``decompositions``: ``inv``, ``det``, ``slogdet``, ``solve``, ``cholesky``, ``matrix_power``,
  ``pinv``, ``qr``, ``svd``, ``eigh``;
- ``norms``: ``norm`` (also ``core.norm``), ``vector_norm``, ``matrix_norm``;
- ``covariance``: ``cov``, ``corrcoef``;
- ``solvers``: ``triangular_solve``, ``cholesky_solve``, ``cholesky_inverse``, ``lstsq``;
- ``factorizations``: ``lu``, ``lu_unpack``, ``householder_product``;
- ``spectral``: ``eig``, ``eigvals`` (complex results), ``eigvalsh``, ``cond``, ``matrix_rank``;
- ``distances``: ``cdist`` (also ``core.cdist``, Paddle's top-level name) and ``pdist``
  (``core.pdist``, Paddle's top-level name);
- ``exponential``: ``matrix_exp``; ``lowrank``: ``svd_lowrank``, ``pca_lowrank``;
- ``products`` also has ``vecdot`` and ``matrix_transpose``.

Importing this package attaches the Tensor methods its modules define (``x.norm()``,
``x.inverse()``, ``x.cross(y)``, ...).
"""
from core.linalg.covariance import corrcoef, cov
from core.linalg.decompositions import (
    cholesky,
    det,
    eigh,
    inv,
    matrix_power,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
)
from core.linalg.distances import cdist, pdist
from core.linalg.exponential import matrix_exp
from core.linalg.factorizations import householder_product, lu, lu_unpack
from core.linalg.lowrank import pca_lowrank, svd_lowrank
from core.linalg.norms import matrix_norm, norm, vector_norm
from core.linalg.products import bmm, dot, matrix_transpose, mm, multi_dot, vecdot

# core.linalg.cross, .outer and .inner stay reachable, outside __all__ as before (core.cross,
# core.outer and core.inner are the documented names).
from core.linalg.products import cross as cross
from core.linalg.products import inner as inner
from core.linalg.products import outer as outer
from core.linalg.solvers import cholesky_inverse, cholesky_solve, lstsq, triangular_solve
from core.linalg.spectral import cond, eig, eigvals, eigvalsh, matrix_rank

__all__ = ["bmm", "cholesky", "corrcoef", "cov", "det", "dot", "eigh", "inv", "matrix_norm",
           "matrix_power", "mm", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd",
           "vector_norm",
           "cdist", "cholesky_inverse", "cholesky_solve", "cond", "eig", "eigvals", "eigvalsh",
           "householder_product", "lstsq", "lu", "lu_unpack", "matrix_rank", "matrix_transpose",
           "triangular_solve", "vecdot",
           "matrix_exp", "pca_lowrank", "pdist", "svd_lowrank"]
