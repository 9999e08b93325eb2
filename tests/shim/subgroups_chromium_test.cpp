// Subgroup builtins bit for bit against headless Chromium's WebGPU (Dawn and Tint on SwiftShader,
// which offers 'subgroups' with subgroups of 4; not shader-f16), the same WGSL and inputs run
// here on the shim. Meaningful only where the shim runs on Chromium's SwiftShader driver too
// (label swiftshader): elsewhere the subgroup sizes differ and the test skips, saying so.
#include <nlohmann/json.hpp>

#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "feature_test.h"

namespace shim_test {
namespace {

namespace fs = std::filesystem;

class SubgroupsChromium : public FeatureTest {};

// Each output of an invocation is defined (ShuffleUp/Down read lanes inside the subgroup only),
// so every word must agree. Floats are arbitrary: the reductions' rounding must agree too.
const char* kKernel = R"(enable subgroups;
@group(0) @binding(0) var<storage, read> u : array<u32>;
@group(0) @binding(1) var<storage, read> f : array<f32>;
@group(0) @binding(2) var<storage, read_write> o : array<u32>;
@group(0) @binding(3) var<storage, read_write> of32 : array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid : vec3u,
        @builtin(subgroup_invocation_id) lane : u32,
        @builtin(subgroup_size) size : u32) {
  let i = gid.x;
  let v = u[i];
  let x = f[i];
  let s = bitcast<i32>(v);
  let at = i * 20u;
  o[at] = lane | (size << 8u);
  o[at + 1u] = subgroupAdd(v);
  o[at + 2u] = subgroupExclusiveAdd(v);
  o[at + 3u] = subgroupInclusiveMul(v);
  o[at + 4u] = bitcast<u32>(subgroupMin(s));
  o[at + 5u] = bitcast<u32>(subgroupMax(s));
  o[at + 6u] = subgroupAnd(v) ^ subgroupOr(v) ^ subgroupXor(v);
  let b = subgroupBallot((v & 1u) == 1u);
  o[at + 7u] = b.x;
  o[at + 8u] = select(0u, 1u, subgroupElect()) | select(0u, 2u, subgroupAll(v != 0u)) |
               select(0u, 4u, subgroupAny(v < 1000u));
  o[at + 9u] = subgroupBroadcast(v, 2u);
  o[at + 10u] = subgroupBroadcastFirst(v);
  o[at + 11u] = subgroupShuffle(v, (lane * 3u + 1u) % size);
  o[at + 12u] = subgroupShuffleXor(v, 3u);
  o[at + 13u] = select(0u, subgroupShuffleUp(v, 1u), lane >= 1u);
  o[at + 14u] = select(0u, subgroupShuffleDown(v, 2u), lane + 2u < size);
  o[at + 15u] = quadBroadcast(v, 3);
  o[at + 16u] = quadSwapX(v) ^ (quadSwapY(v) << 1u) ^ (quadSwapDiagonal(v) << 2u);
  o[at + 17u] = bitcast<u32>(subgroupBroadcast(vec2i(s, -s), 1u).y);
  o[at + 18u] = subgroupExclusiveMul(v | 1u);
  o[at + 19u] = subgroupInclusiveAdd(v >> 4u);
  let fat = i * 6u;
  of32[fat] = subgroupAdd(x);
  of32[fat + 1u] = subgroupMul(x);
  of32[fat + 2u] = subgroupInclusiveAdd(x);
  of32[fat + 3u] = subgroupExclusiveMul(x);
  of32[fat + 4u] = subgroupMin(x) + subgroupMax(x);
  of32[fat + 5u] = quadSwapDiagonal(x) + subgroupShuffleXor(x, 1u);
}
)";

TEST_F(SubgroupsChromium, BitForBitWithChromiumOnSwiftShader) {
  if (!UseDeviceWith({wgpu::FeatureName::Subgroups})) GTEST_SKIP() << "no subgroups here";
  wgpu::AdapterInfo info;
  device.GetAdapterInfo(&info);
  // Chromium's SwiftShader runs subgroups of 4.
  if (info.subgroupMinSize != 4 || info.subgroupMaxSize != 4)
    GTEST_SKIP() << "this device's subgroups are " << info.subgroupMinSize << ".."
                 << info.subgroupMaxSize << " wide, Chromium's SwiftShader 4: compared on "
                 << "SwiftShader only (label swiftshader)";
  if (!fs::exists("/usr/bin/chromium") && !std::getenv("CHROMIUM"))
    GTEST_SKIP() << "no Chromium (apt install chromium)";
  if (!fs::exists(fs::path(TG_DAWN_DIR) / "node_modules" / "playwright-core"))
    GTEST_SKIP() << "no playwright-core: npm ci --prefix " << TG_DAWN_DIR;

  constexpr uint32_t kInvocations = 256;
  std::mt19937 rng(4);
  std::vector<uint32_t> u(kInvocations);
  std::vector<float> f(kInvocations);
  for (auto& w : u) w = rng() % 900u + 1u;
  std::uniform_real_distribution<float> real(-3.0f, 3.0f);
  for (auto& x : f) x = real(rng);

  // Here.
  auto bu = Upload(u, wgpu::BufferUsage::Storage, "u");
  auto bf = Upload(f, wgpu::BufferUsage::Storage, "f");
  auto bo =
      MakeBuffer(kInvocations * 20 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  auto bof =
      MakeBuffer(kInvocations * 6 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
  ASSERT_EQ(Run(kKernel, {bu, bf, bo, bof}, kInvocations / 64), "");
  const auto ours = Read<uint32_t>(bo, kInvocations * 20);
  const auto oursF = Read<uint32_t>(bof, kInvocations * 6);

  // In Chromium.
  nlohmann::json job;
  job["features"] = {"subgroups"};
  job["buffers"] = {{{"size", u.size() * 4}, {"dtype", "u32"}, {"data", u}},
                    {{"size", f.size() * 4}, {"dtype", "f32"}, {"data", f}},
                    {{"size", ours.size() * 4}, {"dtype", "u32"}, {"data", nullptr}},
                    {{"size", oursF.size() * 4}, {"dtype", "u32"}, {"data", nullptr}}};
  job["kernels"] = {{{"label", "subgroups"},
                     {"wgsl", kKernel},
                     {"bindings", {0, 1, 2, 3}},
                     {"dispatch", {kInvocations / 64, 1}}}};
  job["read"] = {2, 3};
  const fs::path dir = fs::temp_directory_path() / ("tg_subgroups_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "job.json") << job.dump();
  const std::string cmd = "XDG_RUNTIME_DIR=/tmp " TG_NODE " " TG_DAWN_DIR
                          "/run_kernels_chromium.mjs " +
                          (dir / "job.json").string() + " " + (dir / "result.json").string() +
                          " 2>" + (dir / "stderr.txt").string();
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream err(dir / "stderr.txt");
    FAIL() << "Chromium runner failed: " << std::string(std::istreambuf_iterator<char>(err), {});
  }
  const auto result = nlohmann::json::parse(std::ifstream(dir / "result.json"));
  fs::remove_all(dir);
  for (const auto& e : result["errors"]) ADD_FAILURE() << "chromium: " << e.get<std::string>();
  const auto theirs = result["buffers"]["2"].get<std::vector<uint32_t>>();
  const auto theirsF = result["buffers"]["3"].get<std::vector<uint32_t>>();
  ASSERT_EQ(theirs.size(), ours.size());
  ASSERT_EQ(theirsF.size(), oursF.size());
  int reported = 0;
  for (size_t i = 0; i < ours.size() && reported < 10; ++i) {
    if (ours[i] != theirs[i])
      ADD_FAILURE() << "invocation " << i / 20 << " output " << i % 20 << ": ours " << ours[i]
                    << " vs chromium " << theirs[i],
          ++reported;
  }
  for (size_t i = 0; i < oursF.size() && reported < 10; ++i) {
    if (oursF[i] != theirsF[i])
      ADD_FAILURE() << "invocation " << i / 6 << " f32 output " << i % 6 << ": ours "
                    << std::bit_cast<float>(oursF[i]) << " vs chromium "
                    << std::bit_cast<float>(theirsF[i]),
          ++reported;
  }
  RecordProperty("compared_words", static_cast<int>(ours.size() + oursF.size()));
}

}  // namespace
}  // namespace shim_test
