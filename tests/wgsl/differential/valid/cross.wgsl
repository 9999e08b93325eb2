// Issue 29: cross of vec3<f32> (abstract arguments made f32).
@group(0) @binding(0) var<storage, read_write> out : array<vec3f>;
@compute @workgroup_size(1) fn main() { out[0] = cross(out[1], vec3(0.0, 1.0, 0.0)) + cross(vec3(1.0, 0.0, 0.0), out[2]); }
