// Issue 26: valid WGSL outside the subset (matrices) must say "unsupported in this WGSL subset".
@compute @workgroup_size(1) fn main() {
  let m = mat2x2(1.0, 2.0, 3.0, 4.0);
}
