// Type aliases and pointers (issue 29), run on random inputs against Dawn: aliases of scalars,
// vectors, arrays and structs, used in declarations, parameters, return types, constructors and
// other aliases, one declared after its use and one shadowed by a local; pointers to function and
// private variables as parameters (written through), a pointer `let` into an array, and a
// workgroup array passed by pointer.
// tg-buffer: f32 256 uniform -100 100
// tg-buffer: f32 1024 zero
// tg-dispatch: 1
alias Real = f32;
alias V4 = vec4<Real>;
alias Row = array<Real, 4>;
alias Pair = Pt;
struct Pt { x : Real, y : Real }
alias Tile = array<f32, 64>;

@group(0) @binding(0) var<storage, read> inputs : array<Real>;
@group(0) @binding(1) var<storage, read_write> out : array<f32>;
var<workgroup> tile : Tile;
var<private> acc : Real;

fn scaled(v : V4, s : Real) -> V4 { return v * s; }
fn sumRow(r : Row) -> Real { return r[0] + r[1] + r[2] + r[3]; }
fn swap(p : ptr<function, Pair>) { let t = (*p).x; (*p).x = (*p).y; p.y = t; }
fn accumulate(q : ptr<private, Real>, v : Real) { *q = *q + v; }
fn tileSum(t : ptr<workgroup, Tile>) -> f32 { var s = 0.0; for (var k = 0u; k < 64u; k++) { s += t[k]; } return s; }

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i : u32) {
  let o = i * 16u;
  let x = inputs[(i * 4u) % 256u];
  let y = inputs[(i * 4u + 1u) % 256u];
  let v = V4(x, y, Real(i), 1.0);
  let w = scaled(v, 0.5);
  out[o] = w.x;
  out[o + 1u] = w.w;
  var r = Row(x, y, 2.0, -1.0);
  out[o + 2u] = sumRow(r);
  let cell = &r[i % 4u];
  *cell = *cell * 3.0;
  out[o + 3u] = sumRow(r);
  var p = Pair(x, y);
  swap(&p);
  out[o + 4u] = p.x;
  out[o + 5u] = p.y;
  acc = 0.0;
  accumulate(&acc, x);
  accumulate(&acc, y);
  out[o + 6u] = acc;
  let Real = 2.5;  // a local shadows the alias from here on
  out[o + 7u] = Real * x;
  tile[i] = x;
  workgroupBarrier();
  out[o + 8u] = tileSum(&tile);
}
