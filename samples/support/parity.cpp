#include "parity.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace tg_samples {

namespace {

nlohmann::json load(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open golden file " + path.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": not JSON: " + e.what());
  }
  if (!j.contains("losses") || !j["losses"].is_array() || !j.contains("steps") || !j["steps"].is_number_integer())
    throw std::runtime_error(path.string() + ": no \"losses\" array or \"steps\" count (a training case's golden?)");
  return j;
}

}  // namespace

int goldenSteps(const std::filesystem::path& golden) { return load(golden)["steps"].get<int>(); }

int compareWithGolden(const std::filesystem::path& golden, const std::vector<float>& losses) {
  const nlohmann::json j = load(golden);
  const nlohmann::json& want = j["losses"];
  int differing = 0;
  for (size_t i = 0; i < std::max(losses.size(), want.size()); ++i) {
    char ours[16] = "-";
    if (i < losses.size()) std::snprintf(ours, sizeof ours, "%08x", std::bit_cast<uint32_t>(losses[i]));
    const std::string theirs = i < want.size() ? want[i].get<std::string>() : "-";
    const bool same = theirs == ours;
    differing += same ? 0 : 1;
    std::printf("step %zu loss %.9g bits %s upstream %s%s\n", i, i < losses.size() ? static_cast<double>(losses[i]) : NAN,
                ours, theirs.c_str(), same ? "" : "  DIFFERS");
  }
  if (differing == 0) {
    std::printf("PARITY PASS: %zu losses equal upstream's bit for bit (%s)\n", losses.size(), golden.string().c_str());
    return 0;
  }
  std::printf("PARITY FAIL: %d of %zu losses differ from %s\n", differing, want.size(), golden.string().c_str());
  return 1;
}

}  // namespace tg_samples
