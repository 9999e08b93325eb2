@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid : vec3u) {
  var x = 0u;
  for (var i = 0u; i < 4u; i++) {
    if (x > 3u) { workgroupBarrier(); }
    x = lid.x;
  }
}
