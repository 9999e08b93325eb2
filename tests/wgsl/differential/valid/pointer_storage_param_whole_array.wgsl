@group(0) @binding(0) var<storage, read_write> b : array<f32>;
fn f(p : ptr<storage, array<f32>, read_write>) { (*p)[0] = 1.0; }
@compute @workgroup_size(1) fn main() { f(&b); }
