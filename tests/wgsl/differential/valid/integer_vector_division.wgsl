// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. expressions/binary/div/scalar-vec3/i32.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let a = vec3<i32>(7, -7, 5);
  let b = vec3<i32>(2, 0, -1);
  let q = a / b;
  let s = 12 / a;
  let r = vec3<u32>(9u, 8u, 7u) % 4u;
  let fr = vec2<f32>(5.5, -5.5) % vec2<f32>(2.0, 2.0);
  out[0] = u32(q.x + q.y + s.z) + r.x + u32(fr.x);
}
