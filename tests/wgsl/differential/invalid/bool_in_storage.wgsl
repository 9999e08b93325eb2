@group(0) @binding(0) var<storage, read_write> b : array<bool>;
@compute @workgroup_size(1) fn main() { b[0] = true; }
