// Issue 26: arrays outside the storage address space have fewer than 65536 elements.
var<private> a : array<f32, 70000>;
@compute @workgroup_size(1) fn main() {
  a[0] = 1.0;
}
