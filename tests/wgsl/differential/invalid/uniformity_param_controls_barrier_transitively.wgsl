@group(0) @binding(0) var<storage, read_write> b : array<u32>;
fn f(v : u32) { if (v > 0u) { workgroupBarrier(); } }
fn g(a : u32, v : u32) { f(v + a); }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) lid : u32) { g(1u, lid); }
