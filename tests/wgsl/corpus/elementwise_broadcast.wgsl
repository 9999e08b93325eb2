// add [4, 6, 8] + [6, 1] with right-aligned broadcasting (tensorgrad's binary template).
// tg-buffer: f32 192 uniform -4 4
// tg-buffer: f32 6 uniform -4 4
// tg-buffer: f32 192 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<f32>;
@group(0) @binding(2) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 192u) { return; }
  let bi_ax_0 = i / 48u;
  let bi_ax_r0 = i % 48u;
  let bi_ax_1 = bi_ax_r0 / 8u;
  let bi = bi_ax_1 * 1u;
  out[i] = a[i] + b[bi];
}
