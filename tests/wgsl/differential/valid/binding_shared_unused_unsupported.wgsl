// Valid WGSL outside the subset: two resources at one @group/@binding, the entry point uses one;
// the writer declares every resource.
@group(0) @binding(0) var<storage, read_write> a : array<f32>;
@group(0) @binding(0) var<storage, read_write> c : array<f32>;
@compute @workgroup_size(1) fn main() { a[0] = 1.0; }
