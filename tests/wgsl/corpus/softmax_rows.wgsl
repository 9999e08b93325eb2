// Log-softmax over rows of 8, and the causal softmax of 8x8 squares.
// tg-buffer: f32 128 uniform -5 5
// tg-buffer: f32 256 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i >= 16u) { return; }
  let base = i * 8u;
  var m = a[base];
  for (var j = 1u; j < 8u; j++) { m = max(m, a[base + j]); }
  var s = 0.0;
  for (var j = 0u; j < 8u; j++) { s += exp(a[base + j] - m); }
  let logSum = log(s) + m;
  for (var j = 0u; j < 8u; j++) { out[base + j] = a[base + j] - logSum; }
  let r = i % 8u;
  var mc = a[base];
  for (var j = 1u; j <= r; j++) { mc = max(mc, a[base + j]); }
  var sc = 0.0;
  for (var j = 0u; j <= r; j++) { sc += exp(a[base + j] - mc); }
  for (var j = 0u; j < 8u; j++) {
    out[128u + base + j] = select(0.0, exp(a[base + j] - mc) / sc, j <= r);
  }
}
