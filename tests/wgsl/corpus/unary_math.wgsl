// The unary templates: erf (A&S 7.1.26), stable sigmoid, tanh, exp, log, sqrt, rsqrt, sin, cos.
// tg-buffer: f32 512 uniform -3 3
// tg-buffer: f32 4608 zero
// tg-dispatch: 2
fn erf_approx(x : f32) -> f32 {
  let ax = abs(x);
  let t = 1.0 / (1.0 + 0.3275911 * ax);
  let p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign(x) * (1.0 - p * exp(-ax * ax));
}
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i >= 512u) { return; }
  let x = a[i];
  out[i] = erf_approx(x);
  out[512u + i] = 0.5 + 0.5 * tanh(0.5 * x);
  out[1024u + i] = tanh(x);
  out[1536u + i] = exp(x);
  out[2048u + i] = log(abs(x) + 0.5);
  out[2560u + i] = sqrt(abs(x));
  out[3072u + i] = 1.0 / sqrt(abs(x) + 0.25);
  out[3584u + i] = sin(x) * cos(x);
  out[4096u + i] = select(0.0, x, x > 0.0);
}
