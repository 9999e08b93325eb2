// Issue 29: bitcast between 32-bit vectors of one width.
@group(0) @binding(0) var<storage, read_write> out : array<vec4u>;
@compute @workgroup_size(1) fn main() {
  let f = vec4f(1.0, -2.0, 0.5, 3.0);
  let u = bitcast<vec4u>(f);
  let i = bitcast<vec4<i32>>(u);
  let g = bitcast<vec4f>(i);
  let h = bitcast<vec2u>(vec2i(-1, 2));
  out[0] = u + bitcast<vec4u>(g) + vec4u(h, bitcast<u32>(f.x), 0u) + bitcast<vec4u>(vec4f(1.0));
}
