// determinant needs a square matrix.
@compute @workgroup_size(1) fn main() { let d = determinant(mat2x3f()); }
