// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. the issue's 9007199254740992.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
const big = 9007199254740992;
const small = big / 4294967296;
@compute @workgroup_size(1) fn main() {
  out[0] = u32(small);
}
