// Issue 29: matrix constructors in every form WGSL has (scalars, columns, zero value, a copy,
// the f shorthand, inferred element types from abstract arguments), and const matrices.
const K = mat2x2(1, 2, 3.5, 4);
@group(0) @binding(0) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main() {
  let a = mat2x2(1.0, 2.0, 3.0, 4.0);
  let b = mat3x2<f32>(vec2(1.0, 2.0), vec2f(3.0), vec2(5, 6));
  let c = mat4x3f();
  let d = mat2x4<f32>(mat2x4<f32>(vec4f(1.0), vec4f(2.0)));
  var e : mat3x3<f32>;
  let f = mat4x4f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  out[0] = a[1][0] + b[2].y + c[3].z + d[1].w + e[2][2] + f[3][3] + K[1].x;
}
