@group(0) @binding(0) var<storage, read_write> b : array<u32>;
fn g(a : u32, c : u32) -> u32 { return a; }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid : vec3u) {
  if (g(1u, lid.x) > 0u) { workgroupBarrier(); }
}
