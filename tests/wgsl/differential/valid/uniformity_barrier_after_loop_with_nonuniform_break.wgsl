@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_id) lid : vec3u) {
  var x = 0u;
  loop { if (x > 3u) { break; } x = x + lid.x; }
  workgroupBarrier();
}
