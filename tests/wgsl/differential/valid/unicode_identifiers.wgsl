@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
let é = 2.0;
let 数 = é * 3.0;
let Δx = 数 + 1.0;
b[0] = Δx;
}
