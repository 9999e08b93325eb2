@group(0) @binding(0) var<storage, read_write> b : array<u32>;
fn f(v : u32) { if (v == 3u) { return; } workgroupBarrier(); }
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid : vec3u) { f(gid.x); }
