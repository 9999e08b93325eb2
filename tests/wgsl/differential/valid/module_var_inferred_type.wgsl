// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/chromium/1343242.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
var<private> v = vec3(1.0, 2.0, 3.0);
var<private> c = 5u;
@compute @workgroup_size(1) fn main() {
  c += 1u;
  out[0] = c + u32(v.z);
}
