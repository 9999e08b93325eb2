struct S { @align(12) a : f32 }
@group(0) @binding(0) var<storage, read_write> s : S;
@compute @workgroup_size(1) fn main() { s.a = 1.0; }
