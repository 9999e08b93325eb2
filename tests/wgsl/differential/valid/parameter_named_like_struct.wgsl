// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. shadowing/struct/param.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
struct a { x : u32 }
fn f(a : a) -> u32 { return a.x; }
@compute @workgroup_size(1) fn main() {
  out[0] = f(a(3u));
}
