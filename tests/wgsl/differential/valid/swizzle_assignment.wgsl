// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. statements/assign/swizzle_assign.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  var v = vec4u(1, 2, 3, 4);
  v.zy = vec2(5, 6);
  v.yz.y = 200;
  v.xw += vec2(10u);
  out[0] = v.x + v.y + v.z + v.w;
}
