struct S { items : array<f32>, n : u32 }
@group(0) @binding(0) var<storage, read_write> s : S;
@compute @workgroup_size(1) fn main() { s.n = 1u; }
