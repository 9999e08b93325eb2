@group(3) @binding(999) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main() { b[0] = 1.0; }
