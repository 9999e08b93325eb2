// Issue 26: a const assertion that does not hold.
const_assert 1 > 2;
@compute @workgroup_size(1) fn main() {}
