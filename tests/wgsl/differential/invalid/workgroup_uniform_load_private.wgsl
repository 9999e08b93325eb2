// workgroupUniformLoad takes a pointer into workgroup memory.
var<private> n : u32;
@compute @workgroup_size(1) fn main() { let a = workgroupUniformLoad(&n); }
