// Golden runs of C++ models: the loss bits of every step and digests of the final parameters and
// the last step's captures, saved as JSON and compared field by field.
#include <cstring>
#include <fstream>

#include "tensorgrad/parity.h"

namespace tg::parity {

namespace {

std::string hexBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return tg::parity::hexBits(f);
}

std::string digest(const Array& a) { return sha256Hex(a.data(), a.size() * 4); }

}  // namespace

nlohmann::json Golden::toJson() const {
  nlohmann::json losses = nlohmann::json::array();
  for (uint32_t b : lossBits) losses.push_back(hexBits(b));
  nlohmann::json j = {{"format", "tensorgrad-golden"}, {"version", 1}, {"losses", losses},
                      {"params", params}, {"captures", captures}};
  if (!source.is_null()) j["source"] = source;
  return j;
}

Golden Golden::fromJson(const nlohmann::json& j) {
  auto bad = [](const std::string& m) { throw std::invalid_argument("golden: " + m); };
  if (!j.is_object() || j.value("format", "") != "tensorgrad-golden") bad("not a tensorgrad golden file");
  if (j.value("version", 0) != 1) bad("version " + j.value("version", nlohmann::json()).dump() + " is not supported (1 is)");
  Golden g;
  try {
    for (const auto& l : j.at("losses")) {
      const std::string s = l.get<std::string>();
      if (s.size() != 8 || s.find_first_not_of("0123456789abcdef") != std::string::npos) bad("loss '" + s + "' is not 8 hex digits");
      g.lossBits.push_back(static_cast<uint32_t>(std::stoul(s, nullptr, 16)));
    }
    g.params = j.at("params").get<std::map<std::string, std::string>>();
    g.captures = j.at("captures").get<std::map<std::string, std::string>>();
    if (j.contains("source")) g.source = j.at("source");
  } catch (const nlohmann::json::exception& e) {
    bad(std::string("malformed: ") + e.what());
  }
  return g;
}

std::string compareGolden(const Golden& want, const Golden& got) {
  std::string out;
  if (want.lossBits.size() != got.lossBits.size()) {
    out += "steps: golden has " + std::to_string(want.lossBits.size()) + ", the run " +
           std::to_string(got.lossBits.size()) + "\n";
  }
  for (size_t i = 0; i < std::min(want.lossBits.size(), got.lossBits.size()); ++i) {
    if (want.lossBits[i] == got.lossBits[i]) continue;
    float a, b;
    std::memcpy(&a, &want.lossBits[i], 4);
    std::memcpy(&b, &got.lossBits[i], 4);
    char line[160];
    std::snprintf(line, sizeof line, "step %zu: loss %.9g (%s) but golden %.9g (%s), %lld ulp\n", i + 1,
                  static_cast<double>(b), hexBits(got.lossBits[i]).c_str(), static_cast<double>(a),
                  hexBits(want.lossBits[i]).c_str(), static_cast<long long>(ulpDistance(a, b)));
    out += line;
    break;  // later steps follow from the first
  }
  for (const auto& [kind, w, g] : {std::tuple{"param", &want.params, &got.params},
                                  std::tuple{"capture", &want.captures, &got.captures}}) {
    for (const auto& [name, hash] : *w) {
      auto it = g->find(name);
      if (it == g->end()) out += std::string(kind) + " '" + name + "': missing from the run\n";
      else if (it->second != hash) out += std::string(kind) + " '" + name + "': differs (sha256 " + it->second + ", golden " + hash + ")\n";
    }
    for (const auto& [name, hash] : *g) {
      if (!w->count(name)) out += std::string(kind) + " '" + name + "': not in the golden\n";
    }
  }
  return out;
}

void saveGolden(const Golden& g, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << g.toJson().dump(1) << "\n";
  if (!out) throw std::runtime_error(file.string() + ": cannot write");
}

Golden loadGolden(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(file)) throw std::invalid_argument(file.string() + ": cannot read a golden file there");
  try {
    return Golden::fromJson(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number past double's range
    throw std::invalid_argument(file.string() + ": not valid JSON (" + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(file.string() + ": " + e.what());
  }
}

namespace detail {
Golden fingerprint(const std::vector<StepResult>& steps, const ParamMap& params) {
  Golden g;
  for (const StepResult& s : steps) {
    uint32_t bits;
    std::memcpy(&bits, &s.loss, 4);
    g.lossBits.push_back(bits);
  }
  for (const auto& [name, values] : params) g.params[name] = sha256Hex(values.data(), values.size() * 4);
  if (!steps.empty()) {
    for (const std::string& name : steps.back().captures.names())
      g.captures[name] = digest(steps.back().captures.get(name));
  }
  return g;
}
}  // namespace detail

}  // namespace tg::parity
