// Issue 29: @size and @align on struct members; the writer pads the GLSL struct so std430 (and
// std140 for the uniform buffer) lays it out as WGSL does.
struct Inner { @size(12) x : f32, @align(16) y : vec2f }
struct S {
  a : f32,
  @size(20) b : u32,
  @align(32) c : vec2f,
  inner : Inner,
  arr : array<Inner, 2>,
  @align(64) last : f32,
}
@group(0) @binding(0) var<storage, read_write> s : S;
@group(0) @binding(1) var<uniform> u : S;
@compute @workgroup_size(1) fn main() {
  var local = S();
  local.inner = Inner(3.0, vec2f(4.0));
  s = local;
  s.arr[1] = u.inner;
  s.last = u.last + u.arr[0].y.x;
}
