// Issue 29: pointers into a uniform buffer that holds matCx2 (decomposed there): a pointer `let`
// with a run-time index, a pointer parameter, a pointer to the whole buffer.
struct S { m : mat2x2<f32>, arr : array<mat4x2<f32>, 2> }
@group(0) @binding(0) var<uniform> u : S;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
fn first(p : ptr<uniform, mat4x2<f32>>) -> f32 { return (*p)[0].x; }
@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i : u32) {
  let p = &u.m;
  let q = &u.arr[i];
  let whole = &u;
  out[0] = (*p)[1].x + q[3].y + first(&u.arr[1]) + (*whole).m[0].y;
}
