// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/chromium/1442551.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
const v = vec3(1, 2, 3);
const k = array(array(0u, 1u), array(2u, 3u));
var<workgroup> tile : array<u32, k[1][1]>;
@compute @workgroup_size(1) fn main() {
  const w = vec2<f32>(0.5, 1.5);
  let f : vec3<f32> = v;
  tile[2] = k[1][0];
  out[0] = u32(f.z + w.y) + tile[2] + u32((v.x << 40u) >> 40u);
}
