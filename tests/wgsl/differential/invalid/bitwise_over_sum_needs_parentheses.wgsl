// Issue 26: & takes unary operands: a sum needs parentheses (Tint agrees).
@compute @workgroup_size(1) fn main() {
  let x = 1 + 2 & 3;
}
