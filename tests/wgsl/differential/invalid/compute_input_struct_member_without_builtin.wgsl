// Every member of an entry point parameter struct is a builtin.
struct In { @builtin(local_invocation_index) li : u32, x : u32 }
@compute @workgroup_size(1) fn main(inp : In) { }
