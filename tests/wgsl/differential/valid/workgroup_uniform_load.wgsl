// Issue 29: workgroupUniformLoad of a scalar, a struct, an array element with a uniform index
// and an atomic; its value is uniform, so a barrier may depend on it.
struct S { a : u32, b : vec2f }
var<workgroup> n : u32;
var<workgroup> s : S;
var<workgroup> arr : array<f32, 4>;
var<workgroup> c : atomic<i32>;
@group(0) @binding(0) var<storage, read_write> out : array<f32>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i : u32, @builtin(workgroup_id) w : vec3u) {
  if (i == 0u) { n = 2u; }
  let k = workgroupUniformLoad(&n);
  if (k > 1u) { workgroupBarrier(); }
  let v = workgroupUniformLoad(&s);
  let e = workgroupUniformLoad(&arr[w.x % 4u]);
  out[i] = v.b.x + e + f32(workgroupUniformLoad(&c));
}
