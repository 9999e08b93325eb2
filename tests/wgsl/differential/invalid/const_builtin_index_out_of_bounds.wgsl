@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(1) fn main() { var a : array<u32, 4>; a[max(4, 2)] = 1u; b[0] = a[0]; }
