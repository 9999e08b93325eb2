// modf takes floats.
@compute @workgroup_size(1) fn main() { let m = modf(1i); }
