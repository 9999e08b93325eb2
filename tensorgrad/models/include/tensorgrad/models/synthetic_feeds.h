// Synthetic feeds drawn from a Mulberry32 stream exactly as the parity cases' JavaScript side
// draws them (tests/parity/cases/feeds.mjs): each value computed in double and rounded once, so
// C++ and the browser feed the same bits. The parity cases, the apps' parity mode and the sample
// registry all draw from these.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <cstdint>
#include <vector>

namespace tg_models::synthetic {

// Uniform in [lo, hi).
inline std::vector<float> uniform(tg::Mulberry32& rng, int64_t n, double lo = -1, double hi = 1) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(lo + (hi - lo) * rng.next());
  return v;
}

// Class ids in [0, classes).
inline std::vector<int32_t> labels(tg::Mulberry32& rng, int64_t n, int32_t classes) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& x : v) x = static_cast<int32_t>(rng.next() * classes);  // floor: u >= 0
  return v;
}

// Image-like values: 75% zeros, the rest uniform in [0, 1); one draw per pixel.
inline std::vector<float> pixels(tg::Mulberry32& rng, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (float& v : out) {
    const double u = rng.next();
    v = u < 0.75 ? 0.f : static_cast<float>((u - 0.75) * 4);
  }
  return out;
}

// Irwin–Hall: the sum of 12 uniforms − 6 (mean 0, variance 1), no transcendental function.
inline std::vector<float> gauss(tg::Mulberry32& rng, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (float& v : out) {
    double s = 0;
    for (int k = 0; k < 12; ++k) s += rng.next();
    v = static_cast<float>(s - 6);
  }
  return out;
}

}  // namespace tg_models::synthetic
