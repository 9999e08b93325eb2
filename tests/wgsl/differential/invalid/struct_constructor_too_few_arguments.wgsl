// Issue 26: a struct constructor takes every member or none.
struct S { a : f32, b : u32 }
@compute @workgroup_size(1) fn main() {
  let s = S(1.0);
}
