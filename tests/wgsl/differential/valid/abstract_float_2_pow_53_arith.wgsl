@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
b[0] = 9007199254740992.0 / 9007199254740992.0;
}
