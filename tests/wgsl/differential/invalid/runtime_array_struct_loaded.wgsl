// ... and is never loaded as a value.
struct S { n : u32, items : array<f32> }
@group(0) @binding(0) var<storage, read_write> s : S;
@compute @workgroup_size(1) fn main() { let v = s; }
