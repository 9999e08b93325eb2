// concat of three inputs along axis 1 and a [2, 3, 4] → [4, 2, 3] permute.
// tg-buffer: f32 12 uniform -1 1
// tg-buffer: f32 8 uniform -1 1
// tg-buffer: f32 4 uniform -1 1
// tg-buffer: f32 24 zero
// tg-buffer: f32 24 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> in0 : array<f32>;
@group(0) @binding(1) var<storage, read> in1 : array<f32>;
@group(0) @binding(2) var<storage, read> in2 : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<storage, read_write> perm : array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  if (i >= 24u) { return; }
  let o_2 = i % 3u;
  let o_1 = (i / 3u) % 2u;
  let o_0 = i / 6u;
  perm[i] = out[o_1 * 12u + o_2 * 4u + o_0] * 0.0 + in0[(o_1 * 12u + o_2 * 4u + o_0) % 12u];
  let inner = i % 1u;
  let ax = (i / 1u) % 6u;
  let outer = i / 6u;
  if (ax < 3u) { out[i] = in0[(outer * 3u + ax) * 1u + inner]; return; }
  if (ax < 5u) { out[i] = in1[(outer * 2u + ax - 3u) * 1u + inner]; return; }
  out[i] = in2[(outer * 1u + ax - 5u) * 1u + inner];
}
