/**
 * Latent semantic analysis (Deerwester et al. 1990) fitted on an index's own chunks: the truncated
 * SVD of the chunk × term TF-IDF matrix, A ≈ U Σ Vᵀ, gives every term a k-dimensional vector (its
 * row of V); a text is the normalised TF-IDF-weighted sum of its terms' vectors ("folding in"), so
 * chunks and queries land in one space where terms that occur in the same contexts are near each
 * other (`lift` and `drag` on Cranfield, `remove` and `delete` in code).
 *
 * The SVD is the randomized range finder of Halko, Martinsson & Tropp (2011): multiply A by a random
 * Gaussian block, one power iteration, orthonormalise (Cholesky QR, twice), then an exact
 * eigendecomposition of the small (k + p)² Gram matrix (Jacobi). Cost O(nnz·(k+p) + (n+V)·(k+p)²):
 * about a second for 12k chunks × 20k terms at k = 128 on one core.
 */

export interface SparseRow {
  idx: Int32Array;
  val: Float32Array;
}

/** mulberry32 → Box–Muller: a seeded Gaussian stream (the fit is deterministic). */
function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967297;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Y (n × r) = A X, X row-major V × r. */
function mul(A: readonly SparseRow[], X: Float64Array, r: number): Float64Array {
  const Y = new Float64Array(A.length * r);
  for (let i = 0; i < A.length; i++) {
    const { idx, val } = A[i]!;
    const o = i * r;
    for (let j = 0; j < idx.length; j++) {
      const c = idx[j]! * r;
      const v = val[j]!;
      for (let t = 0; t < r; t++) Y[o + t]! += v * X[c + t]!;
    }
  }
  return Y;
}

/** Z (V × r) = Aᵀ Y. */
function mulT(A: readonly SparseRow[], Y: Float64Array, r: number, V: number): Float64Array {
  const Z = new Float64Array(V * r);
  for (let i = 0; i < A.length; i++) {
    const { idx, val } = A[i]!;
    const o = i * r;
    for (let j = 0; j < idx.length; j++) {
      const c = idx[j]! * r;
      const v = val[j]!;
      for (let t = 0; t < r; t++) Z[c + t]! += v * Y[o + t]!;
    }
  }
  return Z;
}

/** G = Mᵀ M for a row-major m × r matrix (r × r, symmetric). */
function gram(M: Float64Array, m: number, r: number): Float64Array {
  const G = new Float64Array(r * r);
  for (let i = 0; i < m; i++) {
    const o = i * r;
    for (let a = 0; a < r; a++) {
      const x = M[o + a]!;
      if (x === 0) continue;
      const ga = a * r;
      for (let b = a; b < r; b++) G[ga + b]! += x * M[o + b]!;
    }
  }
  for (let a = 0; a < r; a++) for (let b = 0; b < a; b++) G[a * r + b] = G[b * r + a]!;
  return G;
}

/** Orthonormal columns spanning M's (m × r, in place): Cholesky QR twice. A rank-deficient M (a
 * tiny corpus) gets a jitter on the diagonal instead of failing; its extra columns are noise that
 * the eigendecomposition ranks last. */
function orthonormalize(M: Float64Array, m: number, r: number, passes = 2): void {
  for (let pass = 0; pass < passes; pass++) {
    const G = gram(M, m, r);
    let trace = 0;
    for (let a = 0; a < r; a++) trace += G[a * r + a]!;
    const jitter = (trace / r) * 1e-10 + 1e-300;
    // L Lᵀ = G (lower triangular, in place in L).
    const L = new Float64Array(r * r);
    for (let a = 0; a < r; a++) {
      for (let b = 0; b <= a; b++) {
        let s = G[a * r + b]!;
        for (let k = 0; k < b; k++) s -= L[a * r + k]! * L[b * r + k]!;
        if (a === b) L[a * r + a] = Math.sqrt(Math.max(s, jitter));
        else L[a * r + b] = s / L[b * r + b]!;
      }
    }
    // M ← M L⁻ᵀ: each row x solves L y = x (forward substitution).
    const y = new Float64Array(r);
    for (let i = 0; i < m; i++) {
      const o = i * r;
      for (let a = 0; a < r; a++) {
        let s = M[o + a]!;
        for (let k = 0; k < a; k++) s -= L[a * r + k]! * y[k]!;
        y[a] = s / L[a * r + a]!;
      }
      for (let a = 0; a < r; a++) M[o + a] = y[a]!;
    }
  }
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a symmetric r × r matrix (cyclic Jacobi). */
export function symmetricEigen(S: Float64Array, r: number): { values: number[]; vectors: Float64Array } {
  const A = Float64Array.from(S);
  const V = new Float64Array(r * r);
  for (let i = 0; i < r; i++) V[i * r + i] = 1;
  let scale = 0;
  for (let i = 0; i < r * r; i++) scale += A[i]! * A[i]!;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < r; p++) for (let q = p + 1; q < r; q++) off += A[p * r + q]! ** 2;
    if (off <= 1e-22 * scale) break;
    for (let p = 0; p < r; p++) {
      for (let q = p + 1; q < r; q++) {
        const apq = A[p * r + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (A[q * r + q]! - A[p * r + p]!) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < r; k++) {
          const akp = A[k * r + p]!;
          const akq = A[k * r + q]!;
          A[k * r + p] = c * akp - s * akq;
          A[k * r + q] = s * akp + c * akq;
        }
        for (let k = 0; k < r; k++) {
          const apk = A[p * r + k]!;
          const aqk = A[q * r + k]!;
          A[p * r + k] = c * apk - s * aqk;
          A[q * r + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < r; k++) {
          const vkp = V[k * r + p]!;
          const vkq = V[k * r + q]!;
          V[k * r + p] = c * vkp - s * vkq;
          V[k * r + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: Array.from({ length: r }, (_, i) => A[i * r + i]!), vectors: V };
}

/**
 * The top-k right singular vectors of A (n × V, sparse rows): V × k, row-major — row t is term t's
 * vector. Fewer than k when A has fewer rows or terms (the rest of each row is 0).
 */
export function termVectors(A: readonly SparseRow[], V: number, k: number, seed = 1): Float64Array {
  const out = new Float64Array(V * k);
  const kk = Math.min(k, A.length - 1, V - 1);
  if (kk < 2) return out;
  const r = Math.min(kk + 10, A.length, V);
  const g = gaussian(seed);
  const X = new Float64Array(V * r);
  for (let i = 0; i < X.length; i++) X[i] = g();
  // The power iteration's bases only have to span the right subspace (the last one, Y2, is what
  // must be orthonormal to working precision), so one Cholesky QR pass each: the passes are most of
  // the fit (O((n + V)·r²) each, ~0.5 s at 12k × 20k).
  const Y = mul(A, X, r);
  orthonormalize(Y, A.length, r, 1);
  // One power iteration: sharpens the spectrum's decay (terms' singular values decay slowly).
  const Z = mulT(A, Y, r, V);
  orthonormalize(Z, V, r, 1);
  const Y2 = mul(A, Z, r);
  orthonormalize(Y2, A.length, r);
  // B = Qᵀ A (r × V), held as Bᵀ = Aᵀ Q (V × r); B Bᵀ = U_B Σ² U_Bᵀ; V_k = Bᵀ U_B Σ⁻¹.
  const Bt = mulT(A, Y2, r, V);
  const { values, vectors } = symmetricEigen(gram(Bt, V, r), r);
  const order = values
    .map((v, i) => [v, i] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, kk);
  for (let c = 0; c < order.length; c++) {
    const [value, col] = order[c]!;
    if (!(value > 1e-12)) continue;
    const inv = 1 / Math.sqrt(value);
    for (let t = 0; t < V; t++) {
      let s = 0;
      const o = t * r;
      for (let i = 0; i < r; i++) s += Bt[o + i]! * vectors[i * r + col]!;
      out[t * k + c] = s * inv;
    }
  }
  return out;
}
