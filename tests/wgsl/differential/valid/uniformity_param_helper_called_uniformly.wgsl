@group(0) @binding(0) var<storage, read_write> b : array<u32>;
fn f(v : u32) { if (v > 0u) { workgroupBarrier(); } }
@compute @workgroup_size(64) fn main(@builtin(workgroup_id) wid : vec3u) { f(wid.x); f(3u); }
