@group(0) @binding(0) var t : texture_2d<f32>;
@compute @workgroup_size(1) fn main() { }
