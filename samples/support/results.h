// results.json in the output folder: what a run was (app, device, seed, steps), how fast it ran,
// its losses, its metrics and the pictures it wrote, for scripts and the README's gallery.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "app.h"
#include "train_loop.h"

namespace tg_samples {

class Results {
 public:
  Results(const std::string& app, const CommonOptions& options, const std::string& adapter);
  void loop(const LoopStats& stats);  // losses, final loss, seconds, ms per step
  void metric(const std::string& name, nlohmann::json value);
  void picture(const std::string& file, const std::string& what);
  // Writes <out>/results.json; throws naming the file when it cannot.
  std::filesystem::path write() const;
  const nlohmann::json& json() const { return json_; }

 private:
  std::filesystem::path out_;
  nlohmann::json json_;
};

}  // namespace tg_samples
