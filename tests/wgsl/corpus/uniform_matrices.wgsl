// Uniform buffers holding matCx2 (issue 29): WGSL puts their columns 8 bytes apart, std140 16,
// so the writer decomposes them (glsl_std140.h): inline columns in structs and blocks, a struct
// per matrix in arrays, mirror structs converted back where read. Every piece is read whole,
// by column and by element, with constant and run-time indices and through pointers, and copied
// out; random inputs make a read from a wrong offset visible.
// tg-buffer: f32 56 uniform -4 4
// tg-buffer: f32 6 uniform -4 4
// tg-buffer: f32 16 uniform -4 4
// tg-buffer: f32 256 zero
// tg-dispatch: 1
struct Inner { a : f32, m : mat3x2<f32> }
struct U {
  x : vec2f,
  m : mat2x2<f32>,
  n : mat4x2f,
  @align(16) arr : array<mat2x2<f32>, 3>,
  @align(16) inner : Inner,
  inners : array<Inner, 2>,
  tail : f32,
}
@group(0) @binding(0) var<uniform> u : U;
@group(0) @binding(1) var<uniform> um : mat3x2<f32>;
@group(0) @binding(2) var<uniform> ua : array<mat4x2<f32>, 2>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;

fn colSum(p : ptr<uniform, mat2x2<f32>>) -> vec2f { return (*p)[0] + (*p)[1]; }
fn put2(at : u32, v : vec2f) { out[at] = v.x; out[at + 1u] = v.y; }
fn putU(at : u32, s : U) {
  put2(at, s.x);
  put2(at + 2u, s.m[0]); put2(at + 4u, s.m[1]);
  for (var c = 0u; c < 4u; c++) { put2(at + 6u + 2u * c, s.n[c]); }
  for (var k = 0u; k < 3u; k++) { put2(at + 14u + 4u * k, s.arr[k][0]); put2(at + 16u + 4u * k, s.arr[k][1]); }
  out[at + 26u] = s.inner.a;
  for (var c = 0u; c < 3u; c++) { put2(at + 27u + 2u * c, s.inner.m[c]); }
  for (var k = 0u; k < 2u; k++) {
    out[at + 33u + 7u * k] = s.inners[k].a;
    for (var c = 0u; c < 3u; c++) { put2(at + 34u + 7u * k + 2u * c, s.inners[k].m[c]); }
  }
  out[at + 47u] = s.tail;
}

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i : u32) {
  if (i == 0u) {
    putU(0u, u);                    // the whole block as a value
    let m = u.m;
    put2(48u, m[1]);
    let arr = u.arr;                // an array of matrices
    put2(50u, arr[2][0]);
    let ins = u.inners;             // an array of structs holding matrices
    put2(52u, ins[1].m[2]);
    let inner = u.inner;
    put2(54u, inner.m[0] + inner.m[1]);
    for (var c = 0u; c < 3u; c++) { put2(56u + 2u * c, um[c]); }
    let t = transpose(um);
    out[62u] = t[1].z;
    for (var k = 0u; k < 2u; k++) {
      for (var c = 0u; c < 4u; c++) { put2(64u + 8u * k + 2u * c, ua[k][c]); }
    }
  }
  // Run-time indices into each piece.
  let base = 96u + 16u * i;
  out[base] = u.m[i % 2u][(i + 1u) % 2u];
  out[base + 1u] = u.n[i].y;
  out[base + 2u] = u.arr[i % 3u][i % 2u].x;
  out[base + 3u] = u.inners[i % 2u].m[i % 3u][i % 2u];
  out[base + 4u] = um[i % 3u][1];
  out[base + 5u] = ua[i % 2u][i][i % 2u];
  put2(base + 6u, u.arr[i % 3u][1] * 2.0);
  put2(base + 8u, (u.m + u.m)[1]);
  out[base + 10u] = u.tail + u.inner.a;
  // Pointers into the buffer: a `let` with a run-time index (evaluated once), a parameter.
  var k = i % 3u;
  let pa = &u.arr[k];
  k = 0u;
  put2(base + 11u, (*pa)[1] + pa[0]);
  out[base + 13u] = colSum(&u.m).x + colSum(&u.arr[1]).y;
  let pin = &u.inners[1];
  out[base + 14u] = (*pin).m[2].y + pin.a;
}
