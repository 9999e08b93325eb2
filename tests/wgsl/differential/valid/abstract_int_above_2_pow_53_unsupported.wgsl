// Issue 26: abstract integers are exact only up to 2^53 here (a double); above, "unsupported".
const big = 9223372036854775807;
@compute @workgroup_size(1) fn main() {}
