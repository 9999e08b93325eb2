// WGSL integer semantics: division and remainder by zero, INT_MIN / -1, masked shift amounts,
// wrapping i32 and u32 arithmetic, negative remainders, conversions of out-of-range floats.
// tg-buffer: i32 256 uniform -6 6
// tg-buffer: i32 256 uniform -3 3
// tg-buffer: u32 256 bits
// tg-buffer: i32 2560 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> a : array<i32>;
@group(0) @binding(1) var<storage, read> b : array<i32>;
@group(0) @binding(2) var<storage, read> r : array<u32>;
@group(0) @binding(3) var<storage, read_write> out : array<i32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let i = gid.x;
  let x = a[i];
  let y = b[i];
  let minInt = i32(-2147483648);
  out[i] = x / y;
  out[256u + i] = x % y;
  out[512u + i] = select(minInt / y, minInt % y, i % 2u == 0u);
  out[768u + i] = bitcast<i32>(r[i] << (r[i] & 63u));
  out[1024u + i] = bitcast<i32>(r[i] >> ((r[i] & 7u) + 30u));
  out[1280u + i] = (x * 1000000007) + 2147483647;
  out[1536u + i] = bitcast<i32>(r[i] * 3u + 4294967295u);
  out[1792u + i] = i32(f32(x) * 1.0e10);
  out[2048u + i] = i32(u32(f32(y) * 3.0e9));
  out[2304u + i] = (x >> (r[i] & 40u)) + (-x % 4);
}
