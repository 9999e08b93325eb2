// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. expressions/type_conv/vec2/function/bool-f32.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let b = vec2<bool>(true, false);
  let f = vec2<f32>(b);
  let i = vec3<i32>(vec3<f32>(-1.5, 2.5, 1e20));
  let u = vec4<u32>(vec4<i32>(-1, 2, 3, 4));
  let back = vec2<bool>(f);
  out[0] = u32(f.x) + u32(i.y) + u.x + select(0u, 1u, back.y);
}
