var<private> p : u32;
@compute @workgroup_size(64) fn main() { if p == 0u { workgroupBarrier(); } }
