@group(0) @binding(0) var<storage, read> b : array<f32>;
@compute @workgroup_size(1) fn main() { let p = &b[0]; *p = 1.0; }
