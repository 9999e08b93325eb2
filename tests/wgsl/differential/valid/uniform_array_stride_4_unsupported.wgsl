// Valid WGSL outside the subset: Dawn lays out uniform buffers as storage buffers
// (uniform_buffer_standard_layout), so this array's stride is 4 bytes; std140's is 16.
struct U { a : array<f32, 4>, b : f32 }
@group(0) @binding(0) var<uniform> u : U;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(1) fn main() { out[0] = u.a[1] + u.b; }
