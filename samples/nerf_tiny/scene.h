// The picture nerf-tiny fits, drawn by the app the way upstream's main.ts draws its default: a
// radial gradient from orange (#f97316) at the centre to slate (#1e293b) towards the corners,
// with the word "TENSORGRAD" in white across the middle (here in the samples' 5×7 font). The
// gradient is the low-frequency part; the letters' one-pixel strokes need the high bands of the
// positional encoding.
#pragma once

#include <cstdint>
#include <vector>

namespace tg_samples::nerf {

// RGB in [0, 1], row-major [h, w, 3]. Throws std::invalid_argument unless 16 ≤ w, h ≤ 4096.
std::vector<float> renderScene(int64_t w, int64_t h);

}  // namespace tg_samples::nerf
