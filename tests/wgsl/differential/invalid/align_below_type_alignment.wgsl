// @align must be a multiple of the type's alignment (16 for vec4f), in any address space.
struct S { @align(4) v : vec4f, x : f32 }
var<private> p : S;
@compute @workgroup_size(1) fn main() { p.x = 1.0; }
