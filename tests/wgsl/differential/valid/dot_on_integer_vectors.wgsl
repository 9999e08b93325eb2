// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/tint/1534.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let i = dot(vec3<i32>(1, -2, 3), vec3<i32>(4, 5, 6));
  let u = dot(vec2<u32>(1u, 2u), vec2<u32>(3u, 4u));
  out[0] = u32(i) + u;
}
