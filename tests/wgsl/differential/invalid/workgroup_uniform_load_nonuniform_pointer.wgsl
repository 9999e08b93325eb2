// workgroupUniformLoad's pointer must be uniform: this one's index is the invocation's.
var<workgroup> arr : array<u32, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i : u32) {
  let a = workgroupUniformLoad(&arr[i]);
}
