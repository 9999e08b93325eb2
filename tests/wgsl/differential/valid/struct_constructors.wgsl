// Issue 26: a class of valid WGSL from Tint's test corpus (google/dawn test/tint) that wgslc
// used to reject; our own minimal repro. e.g. bug/chromium/1273451.wgsl.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
struct Inner { a : vec2<u32>, b : array<f32, 2> }
struct S { x : f32, inner : Inner }
@compute @workgroup_size(1) fn main() {
  let s = S(1.5, Inner(vec2(2u), array<f32, 2>(3.0, 4.0)));
  let z = S();
  out[0] = u32(s.x) + s.inner.a.y + u32(s.inner.b[1]) + z.inner.a.x;
}
