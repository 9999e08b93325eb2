alias T = f32;
@compute @workgroup_size(1) fn main() { let T = 1.0; var x : T; _ = x; }
