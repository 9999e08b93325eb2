// select takes scalars and vectors, never matrices.
@compute @workgroup_size(1) fn main() { let m = select(mat2x2f(), mat2x2f(), true); }
