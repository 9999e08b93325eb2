struct S { @size(8) v : vec4f }
@group(0) @binding(0) var<storage, read_write> s : S;
@compute @workgroup_size(1) fn main() { s.v = vec4f(1.0); }
