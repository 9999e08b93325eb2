// Matrices (issue 29): every constructor form, column and element access (read and written),
// + - * with scalars, vectors and matrices, transpose and determinant, in function,
// private and workgroup variables, a storage struct (mat2x3: 16-byte columns; mat4x2: 8-byte
// columns, as WGSL lays them out) and a uniform buffer. Inputs are rounded to small integers so
// every product and sum is exact and the results match Dawn bit for bit.
// tg-buffer: f32 64 uniform -1 1
// tg-buffer: f32 64 uniform -1 1
// tg-buffer: f32 16 uniform -1 1
// tg-buffer: f32 1024 zero
// tg-dispatch: 1
struct Mats {
  a : mat2x3<f32>,
  b : mat4x2f,
  s : f32,
  c : array<mat3x3<f32>, 2>,
}
@group(0) @binding(0) var<storage, read> raw : array<f32, 64>;
@group(0) @binding(1) var<storage, read_write> mats : Mats;
@group(0) @binding(2) var<uniform> u : mat4x4<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;

var<private> p = mat2x2(1.0, 2.0, 3.0, 4.0);
var<workgroup> w : mat3x3f;
const K = mat2x2<f32>(vec2(1, -2), vec2(0.5, 4.0));

fn q(i : u32) -> f32 { return floor(raw[i % 64u] * 8.0); }

fn emit(base : u32, m : mat4x4<f32>) {
  for (var c = 0u; c < 4u; c++) {
    for (var r = 0u; r < 4u; r++) { out[base + c * 4u + r] = m[c][r]; }
  }
}

fn scaled(m : mat3x2<f32>, k : f32) -> mat3x2<f32> { return m * k; }

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid : vec3u, @builtin(local_invocation_index) li : u32) {
  let t = gid.x;
  let o = t * 512u;
  // Constructors: scalars, columns, zero, identity copy, shorthand.
  let uq = mat4x4f(floor(u[0] * 8.0), floor(u[1] * 8.0), floor(u[2] * 8.0), floor(u[3] * 8.0));
  let m2 = mat2x2<f32>(q(t), q(t + 1u), q(t + 2u), q(t + 3u));
  let m3 = mat3x3(vec3(q(t + 4u), q(t + 5u), q(t + 6u)), vec3(q(t + 7u), 1.0, 2.0),
                  vec3f(q(t + 8u)));
  var m4 = mat4x4<f32>();
  let m23 = mat2x3f(vec3f(q(t + 9u), 0.0, q(t + 10u)), vec3f(1.0, q(t + 11u), -1.0));
  let m32 = mat3x2<f32>(mat3x2<f32>(1.0, q(t + 12u), 2.0, q(t + 13u), q(t + 14u), 3.0));
  // Column and element writes; compound assignment.
  m4[0] = vec4(m2[0], m2[1]);
  m4[1][2] = q(t + 15u);
  m4[3] = vec4f(1.0, 2.0, 3.0, 4.0);
  m4[2][gid.x & 3u] = 7.0;
  m4 += mat4x4<f32>(vec4f(1.0), vec4f(2.0), vec4f(3.0), vec4f(4.0));
  m4 *= 0.5;
  emit(o, m4);
  // Products: matrix * matrix of every shape pairing here, matrix * vector, vector * matrix.
  let prod = m23 * m32;                  // mat3x3
  let v3 = m3 * vec3f(1.0, q(t + 16u), 2.0);
  let v2 = vec3f(q(t + 17u), 1.0, -2.0) * m23;  // vec2
  let v4 = uq * vec4f(1.0, -1.0, 2.0, q(t + 18u));
  let v4r = vec4f(q(t + 19u), 1.0, 0.0, 2.0) * uq;
  emit(o + 16u, mat4x4f(vec4(prod[0], v2.x), vec4(prod[1], v2.y), vec4(prod[2], v3.x), v4 + v4r));
  // transpose, determinant, negation, subtraction, scalar * matrix.
  let tr = transpose(m23);               // mat3x2
  let s = scaled(tr, 2.0) - mat3x2f(vec2f(1.0), vec2f(2.0), vec2f(3.0));
  emit(o + 32u, mat4x4f(vec4(s[0], s[1]), vec4(s[2], determinant(m2), determinant(m3)),
                        vec4f(determinant(uq), determinant(m2 * -1.0), 0.0, 1.0),
                        vec4f(2.0 * m2[1], (m2 * K)[0])));
  // Private and workgroup matrices.
  p = p * m2 + K;
  if (li == 0u) { w = m3; }
  workgroupBarrier();
  w[li % 3u] = w[li % 3u] + vec3f(0.0, 0.0, 0.0);
  emit(o + 48u, mat4x4f(vec4(p[0], p[1]), vec4(w[0], w[1].x), vec4(w[1].yz, w[2].xy),
                        vec4(w[2].z, 0.0, 0.0, 1.0)));
  // The storage struct: written by invocation 0, read back by the others after a barrier.
  if (t == 0u) {
    mats.a = m23;
    mats.b = mat4x2f(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    mats.b[2] = vec2f(q(20u), q(21u));
    mats.s = 9.0;
    mats.c[1] = prod;
    mats.c[0][2][1] = -3.0;
  }
  storageBarrier();
  let a = mats.a;
  emit(o + 64u, mat4x4f(vec4(a[0], a[1].x), vec4(a[1].yz, mats.b[0]), vec4(mats.b[3], mats.s, 0.0),
                        vec4(mats.c[0][2], mats.c[1][t & 1u].x)));
  emit(o + 80u, u + u);
}
