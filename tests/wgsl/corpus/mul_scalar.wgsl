// mul_scalar — emitted by tensorgrad's codegen (the real template).
// x * -1.75 with the scalar baked in as an f32 literal.
// tg-buffer: f32 216 uniform -100 100
// tg-buffer: f32 216 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 216u) { return; }
  out[i] = a[i] * -1.75f;
}
