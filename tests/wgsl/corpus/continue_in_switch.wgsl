// `continue` inside a switch (and a nested switch) inside a loop with a continuing block: the
// writer's one-shot do-while would catch a plain break, so a flag carries it out of each switch
// (issue 29). Every iteration's running sum is written from the continuing block.
// tg-buffer: u32 64 uniform 0 1000
// tg-buffer: u32 1024 zero
// tg-dispatch: 1
@group(0) @binding(0) var<storage, read> xs : array<u32, 64>;
@group(0) @binding(1) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) t : u32) {
  var i = 0u;
  var n = xs[t];
  loop {
    if (i >= 24u) { break; }
    let x = xs[(t + i) % 64u];
    switch (x % 5u) {
      case 0u: { continue; }
      case 1u, 2u: {
        switch (x % 3u) {
          case 0u: { continue; }
          default: { n += 100u; }
        }
        n += 1000u;
      }
      default: {
        if (x % 7u == 0u) { break; }   // leaves the switch only
        for (var k = 0u; k < 3u; k++) {
          switch (k) {
            case 1u: { continue; }       // the inner for loop's
            default: { n += k; }
          }
        }
        n += 10u;
      }
    }
    n = n * 3u + 1u;
    continuing {
      i++;
      out[t * 32u + i] = n;
      break if n > 4000000000u;
    }
  }
  out[t * 32u] = n + i;
}
