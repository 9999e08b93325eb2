// An entry point may not use two resources at one @group/@binding (here one through a call).
@group(0) @binding(0) var<storage, read_write> a : array<f32>;
@group(0) @binding(0) var<storage, read_write> c : array<f32>;
fn f() { c[0] = 2.0; }
@compute @workgroup_size(1) fn main() { a[0] = 1.0; f(); }
