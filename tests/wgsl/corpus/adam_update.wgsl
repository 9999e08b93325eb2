// Adam's fused updates: m, v, then p with a per-step lrt scalar.
// tg-buffer: f32 300 uniform -1 1
// tg-buffer: f32 300 uniform 0 1
// tg-buffer: f32 300 uniform -2 2
// tg-buffer: f32 300 uniform -1 1
// tg-buffer: f32 1 uniform 0.001 0.01
// tg-buffer: f32 300 zero
// tg-dispatch: 2
@group(0) @binding(0) var<storage, read_write> m : array<f32>;
@group(0) @binding(1) var<storage, read_write> v : array<f32>;
@group(0) @binding(2) var<storage, read> g : array<f32>;
@group(0) @binding(3) var<storage, read> p : array<f32>;
@group(0) @binding(4) var<storage, read> lrt : array<f32>;
@group(0) @binding(5) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i >= 300u) { return; }
  let mNew = 0.9f * m[i] + 0.100000001f * g[i];
  let gv = g[i];
  let vNew = 0.999f * v[i] + 0.00100000005f * gv * gv;
  m[i] = mNew;
  v[i] = vNew;
  out[i] = 0.99f * p[i] - lrt[0] * mNew / (sqrt(vNew) + 1e-08f);
}
