// Reading the golden files (README.md, format 1) and comparing our runs with them: shared by
// parity_test (bit-for-bit assertions) and parity_report (deviation on other devices).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity_case.h"

namespace tg_parity {

using json = nlohmann::json;

json loadGolden(const std::string& name);  // golden/<name>.json; throws naming what is wrong

std::vector<uint8_t> base64(const std::string& text);
std::string hex(const uint8_t* bytes, size_t n);
std::string sha256(const tg::Array& a);  // of the values' little-endian bytes
std::string sha256(const std::vector<float>& v);
std::string bits(float f);  // "3f800000"
std::string head(const tg::Array& a);  // the first few values, for messages
std::string join(const std::vector<std::string>& v);

// The kernels a step dispatches, in order (upstream's runtime skips empty ones likewise).
std::vector<const tg::KernelSpec*> dispatched(const tg::CompiledIR& ir);
// "op 57 sum_to_shape, [sum] model.h:42 (in loss)": where a kernel comes from in the user's code.
std::string describe(const tg::CompiledIR& ir, int opIndex);
// Which of upstream's kernel forms ours is: thread, tree, tiled or single.
std::string variantOf(const tg::KernelSpec& k);

// Params whose values differ from the golden's digests (or are missing on either side).
std::vector<std::string> paramsDiffering(const tg::ParamMap& ours, const json& golden);

struct TraceDifference {
  int kernel = -1;            // the first kernel whose output differs; -1: none
  bool countMismatch = false;  // the two traces have different lengths
  size_t upstreamCount = 0;
  std::string ours, upstream;  // the two 8-byte digests, as hex
};
TraceDifference firstDifference(const std::vector<tg::KernelOutput>& ours, const std::string& golden);

}  // namespace tg_parity
