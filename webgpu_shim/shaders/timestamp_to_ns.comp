#version 450
// Converts resolved timestamps from ticks to nanoseconds in place, for devices whose tick is not a
// nanosecond: ns = (ticks * P) >> 16, P = round(timestampPeriod * 65536). Each value is two words
// (lo, hi); GLSL 450 has no 64-bit integers, so the 96-bit product is built from 32-bit parts.
// It must match TicksToNs in src/timestamp_conversion.h. Zero (an unwritten query) stays zero.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
  uint first;  // word index of the first value in `words`
  uint count;  // values to convert
  uint scale;  // P
} params;
layout(set = 0, binding = 0, std430) buffer Values { uint words[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.count) return;
  uint at = params.first + 2u * i;
  uint lo = words[at];
  uint hi = words[at + 1u];
  uint p0, p1, q1, q2;
  umulExtended(lo, params.scale, p1, p0);  // lo * P = p1:p0
  umulExtended(hi, params.scale, q2, q1);  // hi * P = q2:q1, shifted up a word
  uint carry;
  uint w1 = uaddCarry(p1, q1, carry);
  uint w2 = q2 + carry;
  // The product is w2:w1:p0; keep bits 16..79.
  words[at] = (p0 >> 16) | (w1 << 16);
  words[at + 1u] = (w1 >> 16) | (w2 << 16);
}
