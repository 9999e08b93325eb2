// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. expressions/zero_init/scalar/bool.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let f = f32();
  let i = i32();
  let u = u32();
  let b = bool();
  let v = vec3<f32>();
  let w : vec4<f32> = vec4();
  out[0] = u32(f) + u32(i) + u + select(1u, 0u, b) + u32(v.x + w.w);
}
