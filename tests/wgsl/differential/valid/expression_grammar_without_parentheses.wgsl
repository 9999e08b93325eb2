// Issue 26: the expression forms WGSL allows without parentheses.
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(1) fn main() {
  let a = (1u + 2u) << 1u;
  let b = 1u & 2u & 3u;
  let c = 1 < 2 && 2 < 3 && true;
  let d = 2 * 3 + 4 * 5 == 26;
  out[0] = a + b + select(0u, 1u, c && d);
}
