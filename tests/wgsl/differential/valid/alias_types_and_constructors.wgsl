alias Vec = vec3<f32>;
alias Arr = array<Vec, 2>;
alias Later = S;
struct S { a : u32 }
fn f(a : Arr) -> Vec { return a[0] + a[1]; }
@compute @workgroup_size(1) fn main() { let v = f(Arr(Vec(1.0), Vec())); let s = Later(2u); _ = v; _ = s; }
