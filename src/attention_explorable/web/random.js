// The seeded generator every explorable that draws random numbers shares with its Python twin
// (attention_explorable.views.matrix.mulberry32): mulberry32 (T. Ettinger, 2017; public domain).

export const MULBERRY_INCREMENT = 0x6D2B79F5;

/**
 * The first `count` outputs of mulberry32 started at `seed` (views.matrix.mulberry32):
 * the state advances by 0x6D2B79F5 and is mixed by 32-bit integer arithmetic.
 * @param {number} seed integer in [0, 2**32)
 * @param {number} count number of outputs
 * @returns {number[]} (count,) integers in [0, 2**32)
 */
export function mulberry32(seed, count) {
  const out = new Array(count);
  let a = seed >>> 0;
  for (let i = 0; i < count; i++) {
    a = (a + MULBERRY_INCREMENT) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    out[i] = (t ^ (t >>> 14)) >>> 0;
  }
  return out;
}
