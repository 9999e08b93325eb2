// An app's `--parity-golden FILE` mode: the parity suite's case (tests/parity/cases/<case>.cpp:
// its sizes, seeds and synthetic feeds) run through the app's own training loop, its losses
// compared with the golden file's (upstream's, in Dawn) bit for bit. The synthetic feeds are the
// suite's (tests/parity/parity_case.cpp), drawn the same way: values computed in double and
// rounded once to f32.
#pragma once

#include <tensorgrad/tensorgrad.h>

#include <filesystem>
#include <vector>

#include <tensorgrad/models/synthetic_feeds.h>

namespace tg_samples {

// The golden's step count; throws naming the file when it cannot be read.
int goldenSteps(const std::filesystem::path& golden);
// Prints each step's loss beside upstream's and returns 0 when every loss has the same f32 bits
// (and there are as many), else 1.
int compareWithGolden(const std::filesystem::path& golden, const std::vector<float>& losses);

namespace synthetic = tg_models::synthetic;  // tensorgrad/models/synthetic_feeds.h

}  // namespace tg_samples
