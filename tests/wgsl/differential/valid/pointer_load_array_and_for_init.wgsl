struct Str { arr : array<i32, 4> }
@group(0) @binding(0) var<storage, read_write> out : array<i32>;
fn load(p : ptr<function, array<i32, 4>>) -> array<i32, 4> { return *p; }
@compute @workgroup_size(1) fn main() {
  var s : Str;
  var j = 2;
  for (let p = &s.arr[j]; *p < 3; ) { *p += 1; }
  let a = load(&s.arr);
  out[0] = a[2];
}
