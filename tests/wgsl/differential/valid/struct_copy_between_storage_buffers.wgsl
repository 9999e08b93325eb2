// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/tint/1735.wgsl.
struct S { a : vec4<f32>, n : u32 }
@group(0) @binding(0) var<storage, read> src : S;
@group(0) @binding(1) var<storage, read_write> dst : S;
@compute @workgroup_size(1) fn main() {
  dst = src;
  let copy = src;
  dst.n = copy.n + 1u;
}
