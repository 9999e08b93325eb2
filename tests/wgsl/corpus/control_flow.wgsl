// loop/continuing/break if, while, switch (multiple selectors, default), for with continue,
// var/let/const, compound assignment, ++/--, a helper function with early returns.
// tg-buffer: i32 256 uniform -20 20
// tg-buffer: i32 1024 zero
// tg-dispatch: 1
const LIMIT : i32 = 7;
fn classify(x : i32) -> i32 {
  if (x < -10) { return -2; } else if (x < 0) { return -1; } else if (x == 0) { return 0; }
  return 1;
}
@group(0) @binding(0) var<storage, read> a : array<i32>;
@group(0) @binding(1) var<storage, read_write> out : array<i32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid : u32) {
  let x = a[lid];
  var n = 0;
  var k = x;
  loop {
    if (k % 2 == 0) { k = k / 2; } else { k = 3 * k + 1; }
    n++;
    continuing {
      break if (k == 1 || k == -1 || k == 0 || k == -5 || k == -17 || n > 100);
    }
  }
  out[lid] = n;
  var s = 0;
  var j = 0;
  while (j < abs(x)) {
    j += 1;
    if (j % 3 == 0) { continue; }
    s += j;
  }
  out[256u + lid] = s;
  var c = 0;
  switch (x) {
    case 1, 2, 3: { c = 10; }
    case -1: { c = -10; }
    case 4, default: { c = x * 2; }
  }
  out[512u + lid] = c + classify(x);
  var t = 0;
  for (var i = 0; i < LIMIT; i++) {
    if (i == x) { continue; }
    if (i > x + 10) { break; }
    t = t * 3 + i;
  }
  t -= 1;
  t--;
  out[768u + lid] = t;
}
