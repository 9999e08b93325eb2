struct S { a : u32 }
alias S = u32;
@compute @workgroup_size(1) fn main() {}
