// Valid WGSL outside the subset: a pointer into a uniform buffer that holds a matCx2, which is
// decomposed there.
struct S { m : mat2x2<f32> }
@group(0) @binding(0) var<uniform> u : S;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main() { let p = &u.m; out[0] = (*p)[1].x; }
