// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/tint/1541.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let a = out[0] == 0u;
  let b = out[1] == 1u;
  let v = vec2<bool>(a, b) & vec2<bool>(true, b);
  out[2] = select(0u, 1u, (a & b) | v.y);
}
