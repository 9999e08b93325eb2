@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid : vec3u) {
  var n = 4u;
  for (var i = 0u; i < n; i++) { workgroupBarrier(); n = lid.x; }
}
