@compute @workgroup_size(1) fn main() { b[0] = f32(N) + s.x; }
const N = M + 1;
const M = 3;
var<private> s : S;
struct S { x : f32, inner : T }
struct T { y : f32 }
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
