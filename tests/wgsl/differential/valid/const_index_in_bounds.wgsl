@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
var a = array<f32, 4>();
var v = vec3f();
b[0] = a[3] + v[2] + a[0];
}
