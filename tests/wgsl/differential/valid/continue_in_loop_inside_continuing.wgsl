@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) lid : u32) {
var i = 0;
loop { continuing { for (var j = 0; j < 2; j++) { continue; } i++; break if i > 3; } }
}
