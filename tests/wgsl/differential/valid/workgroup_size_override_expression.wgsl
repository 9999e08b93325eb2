@group(0) @binding(0) var<storage, read_write> b : array<u32>;
override wg : u32 = 64;
@compute @workgroup_size(wg * 2u) fn main() { b[0] = 1u; }
