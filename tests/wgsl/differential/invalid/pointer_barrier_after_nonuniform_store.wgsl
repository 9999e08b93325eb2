@group(0) @binding(0) var<storage, read_write> b : array<u32>;
fn put(p : ptr<function, u32>, v : u32) { *p = v; }
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i : u32) {
  var c = 0u;
  put(&c, i);
  if (c > 1u) { workgroupBarrier(); }
}
