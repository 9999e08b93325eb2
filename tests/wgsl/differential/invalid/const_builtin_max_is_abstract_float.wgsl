@group(0) @binding(0) var<storage, read_write> b : array<i32>;
const c = max(1, 2.5);
@compute @workgroup_size(1) fn main() { let x : i32 = c; b[0] = x; }
