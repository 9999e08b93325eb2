// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. const/array/array_of_array_of_array.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let a = array(1u, 2u, 3u);
  let f = array(1.0, 2);
  let nested = array(array(0u, 1u), array(2u, 3u));
  out[0] = a[2] + u32(f[1]) + nested[1][0];
}
