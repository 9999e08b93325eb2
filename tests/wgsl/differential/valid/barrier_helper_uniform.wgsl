@group(0) @binding(0) var<storage, read_write> b : array<f32>;
fn sync() { workgroupBarrier(); }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) lid : u32) {
  sync();
  if lid == 0u { b[0] = 1.0; }
}
