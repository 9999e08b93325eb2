// A builtin is an input once, directly or as a struct member.
struct In { @builtin(local_invocation_index) li : u32 }
@compute @workgroup_size(1) fn main(inp : In, @builtin(local_invocation_index) i : u32) { }
