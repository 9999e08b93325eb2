@group(0) @binding(0) var<storage, read_write> b : array<u32>;
@id(3) override wy : i32 = 4;
@compute @workgroup_size(8, (wy), 1i) fn main(@builtin(local_invocation_index) i : u32) { b[i] = i; }
