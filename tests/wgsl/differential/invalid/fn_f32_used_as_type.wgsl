fn f() -> f32 { return 1.0; }
fn f32() {}
@compute @workgroup_size(1) fn main() { }
