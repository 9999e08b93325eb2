@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
const c = 6i * 7i;
const d = 10u - 3u;
const e = 1.5f * 2.0f;
var a = array<f32, 4>();
b[0] = f32(c) + f32(d) + e + a[d - 4u];
}
