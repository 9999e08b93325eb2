// Feed helpers shared by the JavaScript cases; parity_case.h has their C++ twins. Values are
// computed in double and rounded once to f32, so both sides draw the same bits.

// Mulberry32, as upstream's init and our tg::Mulberry32: a double in [0, 1) per call.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// n values uniform in [lo, hi): f32(lo + (hi - lo) * u).
export function uniform(rng, n, lo = -1, hi = 1) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.fround(lo + (hi - lo) * rng());
  return out;
}

// n integer labels in [0, classes): floor(u * classes).
export function labels(rng, n, classes) {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rng() * classes);
  return out;
}

// Image-like values: 75% zeros (as a digit's background), the rest uniform in [0, 1); one draw
// per pixel.
export function pixels(rng, n) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = rng();
    out[i] = u < 0.75 ? 0 : Math.fround((u - 0.75) * 4);
  }
  return out;
}

// Irwin–Hall: the sum of 12 uniforms − 6, mean 0 and variance 1, with no transcendental function
// (JavaScript's and C's libms differ in the last bit).
export function gauss(rng, n) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k < 12; k++) s += rng();
    out[i] = Math.fround(s - 6);
  }
  return out;
}
