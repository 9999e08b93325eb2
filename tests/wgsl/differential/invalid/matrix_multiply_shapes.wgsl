// mat2x3 * mat2x3: the left operand's columns (2) are not the right one's rows (3).
@compute @workgroup_size(1) fn main() { let m = mat2x3f(); let n = m * m; }
