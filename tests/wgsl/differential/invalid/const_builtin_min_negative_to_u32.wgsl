@group(0) @binding(0) var<storage, read_write> b : array<u32>;
const c : u32 = min(-1, 2);
@compute @workgroup_size(1) fn main() { b[0] = c; }
