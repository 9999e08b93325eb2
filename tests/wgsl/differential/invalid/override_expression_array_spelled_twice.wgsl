override O = 123;
var<workgroup> W : array<i32, O * 2>;
@compute @workgroup_size(1) fn main() {
  let p : ptr<workgroup, array<i32, O * 2>> = &W;
  (*p)[0] = 42;
}
