// Issue 26: WGSL's grammar does not chain shifts: mixing needs parentheses (Tint agrees).
@compute @workgroup_size(1) fn main() {
  let x = 1 << 2u >> 1u;
}
