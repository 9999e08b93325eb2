// A compute entry point's builtins as struct members, beside plain builtin parameters; the
// struct is an ordinary type elsewhere (stored in a buffer here).
struct In { @builtin(local_invocation_index) li : u32, @builtin(workgroup_id) wg : vec3u }
@group(0) @binding(0) var<storage, read_write> s : array<In>;
@compute @workgroup_size(1) fn main(inp : In, @builtin(global_invocation_id) g : vec3u) {
  s[inp.li + g.x] = inp;
}
