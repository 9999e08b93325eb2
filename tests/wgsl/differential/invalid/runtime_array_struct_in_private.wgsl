// A struct that holds a runtime-sized array lives only in storage buffers.
struct S { n : u32, items : array<f32> }
var<private> p : S;
@compute @workgroup_size(1) fn main() { p.n = 1u; }
