@id(1) override a : f32 = 1.0;
@id(1) override c : f32 = 2.0;
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
b[0] = a + c;
}
