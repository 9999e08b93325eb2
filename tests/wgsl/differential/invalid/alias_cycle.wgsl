alias A = array<B, 2>;
alias B = A;
@compute @workgroup_size(1) fn main() {}
