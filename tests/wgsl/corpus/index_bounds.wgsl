// Indices the translator proves in range (written without a clamp) beside ones it must keep
// clamped: the proven ones reach their array's last element, the clamped ones step past it or
// are arbitrary. Either way the result is WGSL's (Dawn clamps the same indices).
// tg-buffer: u32 256 bits
// tg-buffer: u32 256 zero
// tg-dispatch: 2
@group(0) @binding(0) var<storage, read> src : array<u32>;
@group(0) @binding(1) var<storage, read_write> out : array<u32>;
var<workgroup> t : array<u32, 64>;
var<workgroup> m : array<vec4<u32>, 16>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_index) lid : u32, @builtin(local_invocation_id) l3 : vec3<u32>,
        @builtin(workgroup_id) wid : vec3<u32>) {
  let g = wid.x * 64u + lid;
  t[lid] = src[g];
  m[lid / 4u][lid % 4u] = src[g] ^ 0x5a5a5a5au;
  workgroupBarrier();
  let row = l3.y * 8u + l3.x;
  var acc = t[row];
  acc += t[(lid >> 1u) * 2u + 1u];
  acc += t[lid & 0x3fu];
  acc += t[min(src[g], 63u)];
  acc += t[select(lid, 63u, lid > 60u)];
  let k = lid | 0x20u;
  acc += t[k];
  acc += m[lid % 16u][(lid / 16u) ^ 3u];
  acc += t[lid + 1u];
  acc += t[63u - lid];
  acc += t[src[g] % 64u];
  acc += t[(src[g] * 3u) % 64u];
  acc += t[src[g]];
  acc += m[src[g] & 15u][src[g] >> 30u];
  out[g] = acc;
}
