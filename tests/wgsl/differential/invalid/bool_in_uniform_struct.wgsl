struct U { flag: bool, x: f32 }
@group(0) @binding(0) var<uniform> u : U;
@compute @workgroup_size(1) fn main() { let x = u.x; }
