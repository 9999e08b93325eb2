fn main2() {}
@compute @workgroup_size(1) fn main() { var v : vec4<f32>; let p = &v; p.x = 1.0; p[1] = 2.0; let q = &v.x; }
