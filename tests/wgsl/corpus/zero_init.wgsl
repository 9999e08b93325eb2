// WGSL zero-initialises every variable without an initializer: workgroup memory (arrays, structs
// with atomics, nested arrays), private arrays and structs, and function-scope arrays of structs.
// Each invocation first reports what it reads before anything is written, then scribbles over
// the shared memory, so a workgroup that reuses an earlier one's memory shows its garbage.
// tg-buffer: u32 4096 bits
// tg-dispatch: 16
struct Pair {
  a : f32,
  b : vec2<i32>,
}
struct Counters {
  hits : atomic<u32>,
  last : u32,
}
var<workgroup> tile : array<f32, 300>;
var<workgroup> grid : array<array<u32, 5>, 7>;
var<workgroup> counters : Counters;
var<workgroup> flag : u32;
var<private> scratch : array<Pair, 3>;
var<private> one : Pair;
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : u32) {
  var local : array<Pair, 2>;
  var s : Pair;
  let base = (wid.x * 64u + lid) * 4u;
  // Every read below must be zero.
  var acc = bitcast<u32>(tile[lid]) | bitcast<u32>(tile[lid + 236u]) | grid[lid % 7u][lid % 5u];
  acc = acc | atomicLoad(&counters.hits) | counters.last | flag;
  acc = acc | bitcast<u32>(scratch[lid % 3u].a) | bitcast<u32>(scratch[2].b.y) | bitcast<u32>(one.b.x);
  acc = acc | bitcast<u32>(local[lid % 2u].a) | bitcast<u32>(local[1].b.x) | bitcast<u32>(s.a);
  out[base] = acc;
  out[base + 1u] = bitcast<u32>(tile[299]);
  out[base + 2u] = grid[6][4];
  workgroupBarrier();
  // Garbage for the next workgroup that lands on this memory.
  tile[lid] = f32(wid.x + 1u);
  tile[lid + 236u] = 3.5;
  grid[lid % 7u][lid % 5u] = 0xdeadu;
  atomicAdd(&counters.hits, 1u);
  if (lid == 0u) {
    counters.last = wid.x + 7u;
    flag = 1u;
  }
  scratch[lid % 3u].a = 2.0;
  workgroupBarrier();
  out[base + 3u] = atomicLoad(&counters.hits);  // 64: the count started at zero
}
