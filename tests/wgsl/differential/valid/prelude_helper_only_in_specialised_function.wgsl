// A prelude helper (tg_div) called only from a function written per workgroup pointer argument:
// the prelude is chosen from that code too (it was not: an internal error).
var<workgroup> w : i32;
@group(0) @binding(0) var<storage, read_write> out : array<i32>;
fn f(p : ptr<workgroup, i32>, d : i32) -> i32 { return *p / d; }
@compute @workgroup_size(1) fn main() { out[0] = f(&w, out[1]); }
