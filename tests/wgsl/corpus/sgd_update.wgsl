// SGD with momentum, Nesterov and L2 decay, as tensorgrad composes it, in one kernel.
// tg-buffer: f32 500 uniform -1 1
// tg-buffer: f32 500 uniform -1 1
// tg-buffer: f32 500 uniform -0.5 0.5
// tg-buffer: f32 1 uniform 0.01 0.1
// tg-buffer: f32 500 zero
// tg-dispatch: 2
@group(0) @binding(0) var<storage, read> p : array<f32>;
@group(0) @binding(1) var<storage, read> g : array<f32>;
@group(0) @binding(2) var<storage, read_write> v : array<f32>;
@group(0) @binding(3) var<storage, read> lr : array<f32>;
@group(0) @binding(4) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i >= 500u) { return; }
  let gEff = g[i] + p[i] * 0.01f;
  let vNew = v[i] * 0.9f + gEff;
  v[i] = vNew;
  out[i] = p[i] - lr[0] * (gEff + vNew * 0.9f);
}
