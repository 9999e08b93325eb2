// Valid WGSL outside the subset: in a uniform buffer a mat2x2's columns are 8 bytes apart, and
// GLSL's std140 puts them 16 apart.
@group(0) @binding(0) var<uniform> u : mat2x2<f32>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = u[1][1]; }
