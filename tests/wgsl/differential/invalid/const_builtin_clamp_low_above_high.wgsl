@group(0) @binding(0) var<storage, read_write> b : array<i32>;
@compute @workgroup_size(1) fn main() { const c = clamp(5, 3, 0); b[0] = c; }
