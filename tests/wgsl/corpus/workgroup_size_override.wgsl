// The workgroup size comes from an override (its default here): each invocation records its
// workgroup and local index, and workgroup memory sums the local indices.
// tg-buffer: u32 256 zero
// tg-buffer: u32 4 zero
// tg-dispatch: 4
override wg : u32 = 64;
var<workgroup> total : atomic<u32>;
@group(0) @binding(0) var<storage, read_write> ids : array<u32>;
@group(0) @binding(1) var<storage, read_write> sums : array<u32>;
@compute @workgroup_size(wg)
fn main(@builtin(global_invocation_id) gid : vec3u, @builtin(local_invocation_index) lid : u32,
        @builtin(workgroup_id) wid : vec3u) {
  if (lid == 0u) { atomicStore(&total, 0u); }
  workgroupBarrier();
  atomicAdd(&total, lid);
  ids[gid.x] = wid.x * 1000u + lid;
  workgroupBarrier();
  if (lid == 0u) { sums[wid.x] = atomicLoad(&total); }
}
