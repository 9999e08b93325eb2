var<workgroup> w : array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) lid : u32) {
  w[lid] = b[lid];
  workgroupBarrier();
  for (var s = 32u; s > 0u; s >>= 1u) {
    if lid < s { w[lid] += w[lid + s]; }
    workgroupBarrier();
  }
  if lid == 0u { b[0] = w[0]; }
}
