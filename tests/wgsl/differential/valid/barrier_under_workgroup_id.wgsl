@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid : vec3u) {
  if wid.x == 0u { workgroupBarrier(); }
  b[0] = 1.0;
}
