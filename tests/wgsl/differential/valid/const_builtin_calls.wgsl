// Builtin calls on constant arguments are const-expressions: module and function scope.
@group(0) @binding(0) var<storage, read_write> b : array<i32>;
const c = max(1, 2);
const d = min(1.5, 2);
const s = select(1, 2, d > 1.0);
var<private> a : array<i32, s>;
@compute @workgroup_size(1) fn main() {
  const e = clamp(7, 0, 3);
  const m = max(3u, 2u);
  var w : array<i32, m>;
  const n = abs(i32(-2147483648));
  a[1] = c + e;
  b[0] = a[1] + w[2] + n + i32(d);
}
