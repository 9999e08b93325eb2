// + takes two matrices of one shape, never a matrix and a scalar.
@compute @workgroup_size(1) fn main() { let m = mat2x2f(); let n = m + 1.0; }
