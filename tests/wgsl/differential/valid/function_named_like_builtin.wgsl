@group(0) @binding(0) var<storage, read_write> b : array<f32>;
fn max3(a : f32, c : f32) -> f32 { return max(a, c); }
@compute @workgroup_size(1) fn main() { b[0] = max3(1.0, 2.0); }
