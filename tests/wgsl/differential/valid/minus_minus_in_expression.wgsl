// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/chromium/380168990.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
const two = 2;
const one = 1;
const three = two--one;
@compute @workgroup_size(1) fn main() {
  let i = i32(out[0]);
  out[1] = u32(three + i--one);
}
