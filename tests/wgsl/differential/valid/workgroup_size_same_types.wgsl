@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(2i, 1i, 1) fn main(@builtin(local_invocation_index) lid : u32) {
b[0] = 1.0;
}
