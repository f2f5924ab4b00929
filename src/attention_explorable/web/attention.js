// The attention arithmetic in the browser, once: the twin of
// attention_explorable/core.py (softmax, dot_product_scores, causal_mask,
// scaled_dot_product_attention, weighted_sum), tested against it by
// tests/browser/test_attention_mirror.py. The explorables' views call these;
// none of them multiplies queries by keys itself.
//
// The inputs come from the explorables' own views (checked there), so these
// functions do not repeat the core's checks: the core is where bad input is
// refused with a message. Reference: Vaswani et al., "Attention Is All You
// Need", 2017; course sections 3.7 (3.7.4: softmax with temperature) and 3.8.

/**
 * core.softmax of one row: the largest finite score first, then the
 * non-positive gaps divided by T, exponentiated and normalised (a gap beyond
 * the double range in quarters: ((s/4 - m/4) / T) * 4).
 * -Infinity is a masked entry (weight 0); a fully masked row gives zeros.
 * @param {number[]} scores (n,) scores (dimensionless)
 * @param {number} temperature T > 0
 * @returns {number[]} (n,) weights, summing to 1 (or all 0 when every entry is masked)
 */
export function softmax(scores, temperature = 1) {
  const finite = scores.filter(Number.isFinite);
  const m = finite.length ? Math.max(...finite) : 0;
  const z = (s) => {
    const gap = s - m;
    return Number.isFinite(gap) ? gap / temperature : ((s * 0.25 - m * 0.25) / temperature) * 4;
  };
  const e = scores.map((s) => (Number.isFinite(s) ? Math.exp(z(s)) : 0));
  let total = 0;
  for (const v of e) total += v;
  return e.map((v) => v / (total > 0 ? total : 1));
}

/**
 * core.dot_product_scores: scores[i][j] = (q_i · k_j) * scale.
 * @param {number[][]} q (n_q, d_k) queries
 * @param {number[][]} k (n_k, d_k) keys
 * @param {number} [scale] factor on every dot product; default 1/√d_k
 * @returns {number[][]} (n_q, n_k) scores
 */
export function dotProductScores(q, k, scale) {
  const d = q.length ? q[0].length : 0;
  const factor = scale === undefined ? 1.0 / Math.sqrt(d) : scale;
  return q.map((qi) => k.map((kj) => {
    let dot = 0;
    for (let c = 0; c < d; c++) dot += qi[c] * kj[c];
    return dot * factor;
  }));
}

/**
 * core.causal_mask: mask[i][j] is true where query i may attend key j (j <= i).
 * @param {number} n sequence length >= 1
 * @returns {boolean[][]} (n, n)
 */
export function causalMask(n) {
  return Array.from({length: n}, (_, i) => Array.from({length: n}, (__, j) => j <= i));
}

/**
 * core.weighted_sum: y = Σ_j α_j v_j.
 * @param {number[]} weights (n,) non-negative, summing to 1
 * @param {number[]|number[][]} values (n,) scalars or (n, d_v) vectors
 * @returns {number|number[]} a scalar, or (d_v,)
 */
export function weightedSum(weights, values) {
  // As core.weighted_sum: clipped to the values' range, which rounding could leave by an ulp.
  const within = (y, column) => Math.min(Math.max(y, Math.min(...column)), Math.max(...column));
  if (!values.length || !Array.isArray(values[0])) {
    let y = 0;
    for (let j = 0; j < values.length; j++) y += weights[j] * values[j];
    return values.length ? within(y, values) : y;
  }
  const y = new Array(values[0].length).fill(0);
  for (let j = 0; j < values.length; j++) {
    for (let c = 0; c < y.length; c++) y[c] += weights[j] * values[j][c];
  }
  return y.map((yc, c) => within(yc, values.map((v) => v[c])));
}

/**
 * core.scaled_dot_product_attention: softmax(q kᵀ · scale / T, masked) v.
 * @param {number[][]} q (n_q, d_k) queries
 * @param {number[][]} k (n_k, d_k) keys
 * @param {number[][]|number[]|null} v (n_k, d_v) or (n_k,) values; null: the weights only
 * @param {{mask?: boolean[][]|null, temperature?: number, scale?: number}} options
 *   mask (n_q, n_k) true where a query may attend a key (null: every key);
 *   temperature T > 0, applied after scale; scale default 1/√d_k
 * @returns {{scores: number[][], weights: number[][], output: Array|null}} scores (n_q, n_k),
 *   -Infinity where masked; weights (n_q, n_k), rows summing to 1 (a fully masked row is 0);
 *   output (n_q, d_v) or (n_q,), null without values
 */
export function scaledDotProductAttention(q, k, v, {mask = null, temperature = 1, scale} = {}) {
  const scores = dotProductScores(q, k, scale)
    .map((row, i) => row.map((s, j) => (mask && !mask[i][j] ? -Infinity : s)));
  const weights = scores.map((row) => softmax(row, temperature));
  const output = v ? weights.map((w) => weightedSum(w, v)) : null;
  return {scores, weights, output};
}
