// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/chromium/1501769.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
const n = 4u;
const_assert n * 2u == 8u;
@compute @workgroup_size(1) fn main() {
  const_assert n > 1u;
  out[0] = n;
}
