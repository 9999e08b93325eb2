// Atomic counters in storage and workgroup memory, and a compare-exchange.
// tg-buffer: u32 256 uniform 0 15
// tg-buffer: u32 16 zero
// tg-buffer: u32 4 zero
// tg-dispatch: 1
var<workgroup> local_total : atomic<u32>;
@group(0) @binding(0) var<storage, read> keys : array<u32>;
@group(0) @binding(1) var<storage, read_write> histogram : array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> summary : array<atomic<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid : u32) {
  if (lid == 0u) { atomicStore(&local_total, 0u); }
  workgroupBarrier();
  atomicAdd(&histogram[keys[lid]], 1u);
  atomicAdd(&local_total, keys[lid]);
  atomicMax(&summary[1], keys[lid]);
  workgroupBarrier();
  if (lid == 0u) { atomicStore(&summary[0], atomicLoad(&local_total)); }
  // Exactly one invocation swaps 0 → 7; everyone else sees 7 and fails.
  let r = atomicCompareExchangeWeak(&summary[2], 0u, 7u);
  if (r.exchanged) { atomicAdd(&summary[3], 1u); }
}
