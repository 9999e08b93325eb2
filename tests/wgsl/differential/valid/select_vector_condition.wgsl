// select with a vecN<bool> condition chooses component by component (GLSL mix with a bvec).
@group(0) @binding(0) var<storage, read_write> out : array<vec4u>;
@compute @workgroup_size(1) fn main() { out[0] = select(out[1], out[2], out[3] > vec4u(5u)) + vec4u(select(vec2(1u, 2u), vec2(3u, 4u), vec2(true, false)), 0u, 0u); }
