alias V = vec2<f32>;
@compute @workgroup_size(1) fn main() { var x : V<f32>; _ = x; }
