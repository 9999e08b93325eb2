// Valid WGSL outside the subset: an array of mat3x2 in a uniform buffer has a 24-byte stride,
// which std140 cannot express (its array strides are multiples of 16).
@group(0) @binding(0) var<uniform> u : array<mat3x2<f32>, 2>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = u[1][2].y; }
