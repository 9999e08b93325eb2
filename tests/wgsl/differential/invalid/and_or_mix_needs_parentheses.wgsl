// Issue 26: && and || do not mix without parentheses (Tint agrees).
@compute @workgroup_size(1) fn main() {
  let x = true && false || true;
}
