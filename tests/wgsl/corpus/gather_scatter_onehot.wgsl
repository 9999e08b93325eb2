// one_hot of i32 indices, a gather by index, and a scatter into a zero range (slice adjoint).
// tg-buffer: i32 64 uniform -2 9
// tg-buffer: f32 80 uniform -1 1
// tg-buffer: f32 640 zero
// tg-buffer: f32 64 zero
// tg-buffer: f32 100 zero
// tg-dispatch: 3
@group(0) @binding(0) var<storage, read> indices : array<i32>;
@group(0) @binding(1) var<storage, read> table : array<f32>;
@group(0) @binding(2) var<storage, read_write> onehot : array<f32>;
@group(0) @binding(3) var<storage, read_write> gathered : array<f32>;
@group(0) @binding(4) var<storage, read_write> scattered : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i < 640u) {
    onehot[i] = select(0.0, 1.0, indices[i / 10u] == i32(i % 10u));
  }
  if (i < 64u) {
    let k = clamp(indices[i], 0, 7);
    gathered[i] = table[u32(k) * 10u + i % 10u];
  }
  if (i < 100u) {
    let ax = (i / 10u) % 10u;
    if (ax < 3u || ax >= 8u) {
      scattered[i] = 0.0;
      return;
    }
    scattered[i] = table[(ax - 3u) * 10u + i % 10u];
  }
}
