// Matrices hold floats.
@compute @workgroup_size(1) fn main() { var m : mat2x2<i32>; }
