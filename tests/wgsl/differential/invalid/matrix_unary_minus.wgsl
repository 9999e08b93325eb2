// WGSL has no unary minus on matrices.
@compute @workgroup_size(1) fn main() { let m = mat2x2f(); let n = -m; }
