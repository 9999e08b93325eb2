#include "dawn_oracle.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tg_test {
namespace {

nlohmann::json leafData(const tg::BufferSpec& b, const tg::EvalInputs& env) {
  const auto pick = [&](const std::map<std::string, tg::HostTensor>& m) -> nlohmann::json {
    auto it = m.find(b.name);
    if (it == m.end()) return nullptr;
    return it->second.dtype == tg::Dtype::F32 ? nlohmann::json(it->second.f)
                                              : nlohmann::json(it->second.i);
  };
  switch (b.kind) {
    case tg::BufferSpec::Kind::Param:
      return pick(env.params);
    case tg::BufferSpec::Kind::TensorInput:
      return pick(env.inputs);
    case tg::BufferSpec::Kind::State: {
      nlohmann::json j = pick(env.states);
      if (!j.is_null()) return j;
      const auto n = static_cast<size_t>(tg::shapeSize(b.shape));
      return b.dtype == tg::Dtype::F32
                 ? nlohmann::json(std::vector<float>(n, static_cast<float>(b.initValue)))
                 : nlohmann::json(std::vector<int32_t>(n, static_cast<int32_t>(b.initValue)));
    }
    default:
      return nullptr;
  }
}

}  // namespace

DawnRun runOnDawn(const tg::Graph&, const tg::BufferPlan& plan,
                  const std::vector<tg::KernelSpec>& kernels, const tg::EvalInputs& env) {
  nlohmann::json job;
  job["buffers"] = nlohmann::json::array();
  job["read"] = nlohmann::json::array();
  for (const tg::BufferSpec& b : plan.buffers) {
    job["buffers"].push_back({{"size", b.byteSize},
                              {"dtype", std::string(tg::dtypeName(b.dtype))},
                              {"data", leafData(b, env)}});
    job["read"].push_back(b.id);
  }
  job["kernels"] = nlohmann::json::array();
  for (const tg::KernelSpec& k : kernels) {
    if (k.wgsl.empty()) continue;
    const auto d = k.dispatch();
    const std::string label =
        "op " + std::to_string(k.opIndex) + " (" + std::string(tg::opKindName(k.kind)) + ")";
    job["kernels"].push_back(
        {{"label", label}, {"wgsl", k.wgsl}, {"bindings", k.bindings}, {"dispatch", {d[0], d[1]}}});
  }
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tg_dawn_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                    "_" + std::to_string(reinterpret_cast<uintptr_t>(&job)) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  const auto jobPath = dir / "job.json", resultPath = dir / "result.json";
  std::ofstream(jobPath) << job.dump();
  const std::string cmd =
      "EGL_PLATFORM=surfaceless XDG_RUNTIME_DIR=/tmp " TG_NODE " " TG_DAWN_RUNNER " " +
      jobPath.string() + " " + resultPath.string() + " 2>" + (dir / "stderr.txt").string();
  const int rc = std::system(cmd.c_str());
  DawnRun run;
  if (rc != 0) {
    std::ifstream err(dir / "stderr.txt");
    run.errors.push_back("Dawn runner failed (exit " + std::to_string(rc) +
                         "): " + std::string(std::istreambuf_iterator<char>(err), {}) +
                         "\nInstall the oracle with scripts/setup.sh (npm install in tests/dawn).");
    return run;
  }
  nlohmann::json result = nlohmann::json::parse(std::ifstream(resultPath));
  for (const auto& e : result["errors"]) run.errors.push_back(e.get<std::string>());
  run.buffers.resize(plan.buffers.size());
  for (const tg::BufferSpec& b : plan.buffers) {
    run.buffers[static_cast<size_t>(b.id)] =
        result["buffers"][std::to_string(b.id)].get<std::vector<uint32_t>>();
  }
  std::filesystem::remove_all(dir);
  return run;
}

size_t expectDawnMatchesCpu(const tg::Graph& graph, const tg::ParamGrads& grads,
                            const std::vector<tg::WritebackDecl>& writebacks,
                            const tg::EvalInputs& env, double rtol, double atol,
                            tg::EmitOptions options) {
  const tg::BufferPlan plan = tg::planBuffers(graph, grads, writebacks);
  const auto kernels = tg::emitKernels(graph, plan, options);
  // The tensor each buffer holds at the end, and whether the GPU ever materialised it.
  std::vector<int> lastOccupant(plan.buffers.size(), -1);
  for (const tg::Op& op : graph.ops)
    lastOccupant[static_cast<size_t>(plan.tensorToBuffer[static_cast<size_t>(op.out)])] = op.out;
  std::vector<bool> materialised(graph.tensors.size(), false);
  for (const tg::KernelSpec& k : kernels) {
    const tg::Op& op = graph.ops[static_cast<size_t>(k.opIndex)];
    const bool leaf = op.kind == tg::OpKind::ParamInput || op.kind == tg::OpKind::TensorInput ||
                      op.kind == tg::OpKind::StateInput;
    if (leaf || !k.wgsl.empty()) materialised[static_cast<size_t>(op.out)] = true;
  }
  const DawnRun gpu = runOnDawn(graph, plan, kernels, env);
  for (const auto& e : gpu.errors) ADD_FAILURE() << e;
  if (!gpu.errors.empty()) return 0;
  const auto cpu = tg::evaluatePlanned(graph, plan, env);
  for (const tg::BufferSpec& b : plan.buffers) {
    // The buffer's last occupant decides how its bits read (pooling may change the dtype).
    const tg::HostTensor& want = cpu[static_cast<size_t>(b.id)];
    const std::vector<uint32_t>& got = gpu.buffers[static_cast<size_t>(b.id)];
    if (want.f.empty() && want.i.empty()) continue;  // never written
    if (!materialised[static_cast<size_t>(lastOccupant[static_cast<size_t>(b.id)])])
      continue;  // fused away
    const size_t n = static_cast<size_t>(want.size());
    int reported = 0;
    for (size_t k = 0; k < n && reported < 5; ++k) {
      if (want.dtype == tg::Dtype::F32) {
        const double w = want.f[k], g = std::bit_cast<float>(got.at(k));
        if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
          ADD_FAILURE() << "buffer " << b.id << " (" << tg::bufferKindName(b.kind) << " " << b.name
                        << " " << tg::showShape(want.shape) << ") element " << k << ": dawn " << g
                        << " vs cpu " << w;
          ++reported;
        }
      } else if (std::bit_cast<int32_t>(got.at(k)) != want.i[k]) {
        ADD_FAILURE() << "buffer " << b.id << " element " << k << ": dawn "
                      << std::bit_cast<int32_t>(got[k]) << " vs cpu " << want.i[k];
        ++reported;
      }
    }
  }
  return static_cast<size_t>(
      std::count_if(kernels.begin(), kernels.end(), [](const auto& k) { return !k.wgsl.empty(); }));
}

}  // namespace tg_test
