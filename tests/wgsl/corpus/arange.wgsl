// arange — emitted by tensorgrad's codegen (the real template).
// arange(40) as f32.
// tg-buffer: f32 40 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x + gid.y * 16776960u;
  if (i >= 40u) { return; }
  out[i] = f32(i);
}
