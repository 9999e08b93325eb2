// Issue 29: uniform buffers holding matCx2 (columns 8 bytes apart in WGSL, 16 in std140): the
// writer decomposes them into vec2 columns and converts back where they are read.
struct S { a : f32, m : mat3x2<f32>, arr : array<mat2x2<f32>, 2> }
@group(0) @binding(0) var<uniform> u : mat2x2<f32>;
@group(0) @binding(1) var<uniform> s : S;
@group(0) @binding(2) var<uniform> arr : array<S, 2>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i : u32) {
  let whole = s;
  out[0] = u[1][1] + whole.m[2].x + s.arr[i][1].y + arr[1].m[i].x + (arr[0].arr[1] * u)[0].y;
}
