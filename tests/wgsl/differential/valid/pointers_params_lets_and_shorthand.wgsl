struct S { x : f32, y : array<f32, 4> }
@group(0) @binding(0) var<storage, read_write> b : array<f32>;
@group(0) @binding(1) var<storage, read_write> sb : S;
var<private> pv : array<i32, 4>;
var<workgroup> w : array<u32, 8>;
fn inc(p : ptr<function, f32>) { *p = *p + 1.0; }
fn incp(p : ptr<private, i32>) { *p += 2; }
fn setS(p : ptr<storage, S, read_write>, v : f32) { p.x = v; (*p).y[2] = v * 2.0; }
fn setF(p : ptr<storage, f32, read_write>) { *p = 7.0; }
fn wg(p : ptr<workgroup, array<u32, 8>>) -> u32 { p[1] = 3u; return (*p)[1]; }
fn len(p : ptr<storage, array<f32>, read_write>) -> u32 { return arrayLength(p); }
@compute @workgroup_size(1) fn main() {
  var a : array<f32, 4>;
  var i = 1;
  let q = &a[i];
  i = 3;
  *q = 5.0;
  inc(q);
  inc(&a[0]);
  incp(&pv[2]);
  var s : S;
  let ps = &s;
  ps.y[1] = 4.0;
  (*ps).x = 1.0;
  setS(&sb, 3.0);
  setF(&sb.y[1]);
  setF(&b[0]);
  let whole = &sb;
  let copy = *whole;
  *whole = copy;
  b[1] = a[1] + a[3] + f32(pv[2]) + s.y[1] + s.x + f32(wg(&w)) + f32(len(&b));
}
