@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
var i = 0;
loop { continuing { i++; if i > 2 { return; } break if i > 3; } }
}
