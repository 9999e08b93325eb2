// workgroupUniformLoad is a barrier: it needs uniform control flow.
var<workgroup> n : u32;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i : u32) {
  if (i == 0u) { let a = workgroupUniformLoad(&n); }
}
