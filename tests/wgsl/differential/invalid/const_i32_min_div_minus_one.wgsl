@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main() {
  const c = (-2147483647i - 1i) / -1i;
  b[0] = f32(c);
}
