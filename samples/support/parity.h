// An app's `--parity-golden FILE` mode: the parity suite's case (tests/parity/cases/<case>.cpp:
// its sizes, seeds and synthetic feeds) run through the app's own training loop, its losses
// compared with the golden file's (upstream's, in Dawn) bit for bit. The synthetic feeds are the
// suite's (tests/parity/parity_case.cpp), drawn the same way: values computed in double and
// rounded once to f32.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <filesystem>
#include <vector>

namespace tg_samples {

// The golden's step count; throws naming the file when it cannot be read.
int goldenSteps(const std::filesystem::path& golden);
// Prints each step's loss beside upstream's and returns 0 when every loss has the same f32 bits
// (and there are as many), else 1.
int compareWithGolden(const std::filesystem::path& golden, const std::vector<float>& losses);

namespace synthetic {
std::vector<float> uniform(tg::Mulberry32& rng, int64_t n, double lo = -1, double hi = 1);
std::vector<int32_t> labels(tg::Mulberry32& rng, int64_t n, int32_t classes);
std::vector<float> pixels(tg::Mulberry32& rng, int64_t n);  // 75% zeros, the rest uniform [0, 1)
std::vector<float> gauss(tg::Mulberry32& rng, int64_t n);   // Irwin–Hall: 12 uniforms − 6
}  // namespace synthetic

}  // namespace tg_samples
