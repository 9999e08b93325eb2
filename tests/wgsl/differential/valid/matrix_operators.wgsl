// Issue 29: + - * on matrices, with scalars and vectors, compound assignment, column and element
// writes, transpose and determinant, matrices in private, workgroup and storage memory and as
// parameters and results.
struct M { a : mat3x2<f32>, b : mat2x3<f32> }
@group(0) @binding(0) var<storage, read_write> m : M;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@group(0) @binding(2) var<uniform> u : mat4x4<f32>;
var<private> p : mat2x2<f32>;
var<workgroup> w : array<mat3x3<f32>, 2>;
fn twice(x : mat3x2<f32>) -> mat3x2<f32> { return x * 2.0; }
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i : u32) {
  let ab = m.a * m.b;   // mat2x2
  let ba = m.b * m.a;   // mat3x3
  p = ab + p - ab;
  p *= ab;
  p[i % 2u][1] = 3.0;
  w[i] = transpose(ba) * 0.5;
  m.a = twice(m.a);
  m.b[1] = vec3f(1.0, 2.0, 3.0) * ba;
  let v = u * vec4f(1.0);
  var r = vec2f(1.0) * m.a;
  r *= 2.0;
  out[0] = determinant(p) + determinant(ba) + determinant(u) + v.x + r.z + w[0][1][2];
}
