// const_fill — emitted by tensorgrad's codegen (the real template).
// ones([5, 7]).
// tg-buffer: f32 35 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 35u) { return; }
  out[i] = 1.0f;
}
