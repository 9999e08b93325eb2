#include "results.h"

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace tg_samples {

namespace {
// JSON has no NaN or infinity: those become null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
}  // namespace

Results::Results(const std::string& app, const CommonOptions& o, const std::string& adapter) : out_(o.out) {
  json_ = {{"app", app}, {"device", adapter}, {"kernels", o.kernels}, {"seed", o.seed}, {"steps", o.steps},
           {"metrics", nlohmann::json::object()}, {"pictures", nlohmann::json::object()}};
}

void Results::loop(const LoopStats& s) {
  nlohmann::json losses = nlohmann::json::array();
  for (float l : s.losses) losses.push_back(number(l));
  json_["losses"] = std::move(losses);
  json_["finalLoss"] = number(s.finalLoss());
  json_["trainSeconds"] = s.seconds;
  json_["msPerStep"] = s.msPerStep();
}

void Results::metric(const std::string& name, nlohmann::json value) { json_["metrics"][name] = std::move(value); }

void Results::picture(const std::string& file, const std::string& what) { json_["pictures"][file] = what; }

std::filesystem::path Results::write() const {
  const std::filesystem::path path = out_ / "results.json";
  std::ofstream f(path);
  f << json_.dump(2) << "\n";
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path.string());
  return path;
}

}  // namespace tg_samples
