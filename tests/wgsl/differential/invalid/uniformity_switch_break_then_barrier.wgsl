@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid : vec3u) {
  switch (lid.y) { case 0u: { if (lid.x > 0u) { break; } workgroupBarrier(); } default {} }
}
