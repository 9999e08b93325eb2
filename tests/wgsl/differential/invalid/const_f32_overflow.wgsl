@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
const c = 3e38f * 10.0f;
b[0] = c;
}
