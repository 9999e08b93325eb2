// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. builtins/gen/literal/atomicCompareExchangeWeak/83580d.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
fn atomicAdd_1(x : u32) -> u32 { return x + 1u; }
fn vec_len(v : vec2<f32>) -> f32 { return abs(v.x) + abs(v.y); }
fn max(a : u32) -> u32 { return a * 2u; }
@compute @workgroup_size(1) fn main() {
  out[0] = atomicAdd_1(2u) + u32(vec_len(vec2(1.0, -2.0))) + max(3u);
}
