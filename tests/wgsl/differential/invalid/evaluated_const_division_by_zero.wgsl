// Issue 26: where `&&` does evaluate its right side, an integer division by zero in a
// const-expression is an error.
@compute @workgroup_size(1) fn main() {
  let x = true && (1 / 0 > 0);
}
