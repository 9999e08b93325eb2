var<workgroup> w : atomic<u32>;
fn f(p : ptr<workgroup, atomic<u32>>) { atomicAdd(p, 1u); }
@compute @workgroup_size(1) fn main() { f(&w); }
