@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main() { b[0] = later(2.0); }
fn later(x : f32) -> f32 { return x * 2.0; }
