// bitcast keeps the width: vec4<u32> has 128 bits, vec2<f32> 64.
@compute @workgroup_size(1) fn main() { let v = bitcast<vec2f>(vec4u(1u)); }
