@group(0) @binding(0) var<storage, read_write> b : array<f32>;
fn f(x : u32) -> u32 { return g(x); }
fn g(x : u32) -> u32 { return f(x); }
@compute @workgroup_size(1) fn main() { b[0] = f32(f(1u)); }
