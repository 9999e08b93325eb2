struct U { n : u32 }
@group(0) @binding(1) var<uniform> u : U;
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(64) fn main() {
  if u.n > 2u { workgroupBarrier(); }
  b[0] = 1.0;
}
