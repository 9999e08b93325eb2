// cross takes vec3s only.
@compute @workgroup_size(1) fn main() { let c = cross(vec2f(1.0), vec2f(2.0)); }
