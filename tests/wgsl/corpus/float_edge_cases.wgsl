// f32 literal rounding, NaN, abstract-float constant folding, infinities from division by zero,
// round-half-to-even, fract/trunc/floor/ceil on negatives, clamp/mix/step/smoothstep, fma, pow.
// tg-buffer: f32 256 uniform -10 10
// tg-buffer: f32 3328 zero
// tg-dispatch: 1
const THIRD = 1.0 / 3.0;
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  let x = a[i];
  out[i] = x * 0.1 + THIRD + 16777217.0;
  out[256u + i] = 1.0 / (x - x);
  out[512u + i] = round(x * 0.5 + 0.5);
  out[768u + i] = fract(x) + trunc(x) * 10.0;
  out[1024u + i] = floor(x) - ceil(x) * 100.0;
  out[1280u + i] = clamp(x, -2.5, 3.5) + mix(x, 2.0, 0.25);
  out[1536u + i] = step(0.5, x) + smoothstep(-1.0, 1.0, x);
  out[1792u + i] = fma(x, 1.5, -0.25);
  out[2048u + i] = pow(abs(x) + 1.0, 1.5);
  out[2304u + i] = atan2(x, 2.0) + exp2(x * 0.25) + log2(abs(x) + 1.0);
  out[2560u + i] = inverseSqrt(abs(x) + 1.0) + min(x, 0.0) * max(x, 1.0);
  out[3072u + i] = (x - x) / (x - x);  // NaN
  out[2816u + i] = 1e-5 + 3.4028234663852886e38 * 0.5 + f32(i32(x * 3.0)) + f32(u32(abs(x)));
}
