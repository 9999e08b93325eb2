override O = 123;
alias A = array<i32, O * 2>;
var<workgroup> W : A;
@group(0) @binding(0) var<storage, read_write> b : array<i32>;
@compute @workgroup_size(1) fn main() {
  let p : ptr<workgroup, A> = &W;
  (*p)[0] = 42;
  b[0] = W[0] + workgroupUniformLoad(&W[1]);
}
