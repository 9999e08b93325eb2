// mat2x2 takes 2 columns or 4 scalars.
@compute @workgroup_size(1) fn main() { let m = mat2x2f(1.0, 2.0, 3.0); }
