var<private> g : f32;
fn f(p : ptr<function, f32>) { *p = 1.0; }
@compute @workgroup_size(1) fn main() { f(&g); }
