// The kernel corpus (tests/wgsl/corpus): every kernel family tensorgrad's codegen emits plus
// edge cases. Each file runs on random inputs through this translator + webgpu_shim (Vulkan)
// and through real Dawn; the outputs must agree bit for bit for integers and within 1e-6
// relative or 1e-7 absolute for floats. Every output also passes spirv-val (translate() runs it).
//
// Dawn's outputs can be saved and replayed (WGSL_CORPUS_SAVE / WGSL_CORPUS_REFERENCE) to check the
// same corpus on a GPU host that has Vulkan but no node.
//
// A file's header says what to bind and how to dispatch:
//   // tg-buffer: <f32|i32|u32> <count> <zero|uniform LO HI|bits>
//   // tg-dispatch: X [Y]
//   // tg-rtol: R            (optional; default 1e-6)
#include <gtest/gtest.h>
#include <webgpu/webgpu_cpp.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <tuple>

#include "default_device.h"
#include "wgsl_subset/wgsl_subset.h"

namespace {

namespace fs = std::filesystem;

struct BufferSpec {
  std::string dtype;
  size_t count = 0;
  std::vector<uint32_t> words;  // initial contents
};

struct Kernel {
  std::string name, source;
  std::vector<BufferSpec> buffers;
  std::array<uint32_t, 2> dispatch{1, 1};
  double rtol = 1e-6;  // `// tg-rtol: R` loosens it for builtins WGSL bounds only loosely
};

Kernel load(const fs::path& path) {
  Kernel k;
  k.name = path.stem().string();
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  k.source = ss.str();
  std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>{}(k.name)));
  std::istringstream lines(k.source);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string slashes, tag;
    words >> slashes >> tag;
    if (tag == "tg-rtol:") {
      words >> k.rtol;
    } else if (tag == "tg-dispatch:") {
      words >> k.dispatch[0];
      if (!(words >> k.dispatch[1])) k.dispatch[1] = 1;
    } else if (tag == "tg-buffer:") {
      BufferSpec b;
      std::string fill;
      words >> b.dtype >> b.count >> fill;
      double lo = 0, hi = 0;
      if (fill == "uniform") words >> lo >> hi;
      for (size_t i = 0; i < b.count; ++i) {
        if (fill == "zero")
          b.words.push_back(0);
        else if (fill == "bits")
          b.words.push_back(static_cast<uint32_t>(rng()));
        else if (b.dtype == "f32")
          b.words.push_back(std::bit_cast<uint32_t>(
              static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng))));
        else
          b.words.push_back(
              std::bit_cast<uint32_t>(static_cast<int32_t>(std::uniform_int_distribution<int64_t>(
                  static_cast<int64_t>(lo), static_cast<int64_t>(hi))(rng))));
      }
      k.buffers.push_back(std::move(b));
    }
  }
  return k;
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  const char* dir =
      std::getenv("WGSL_CORPUS_DIR");  // another checkout's corpus (e.g. on a GPU host)
  for (const auto& e : fs::directory_iterator(dir ? dir : TG_WGSL_CORPUS)) {
    if (e.path().extension() == ".wgsl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::vector<uint32_t>> runOnShim(const Kernel& k) {
  std::vector<std::string> errors;
  const test_support::DefaultDevice gpu = test_support::openDefaultDevice(errors);
  const wgpu::Device& device = gpu.device;
  if (!device) {
    ADD_FAILURE() << errors.front();
    return {};
  }
  wgpu::ShaderSourceWGSL src;
  src.code = k.source;
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &src;
  md.label = k.name;
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = device.CreateShaderModule(&md);
  wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pd);
  std::vector<wgpu::Buffer> buffers;
  std::vector<wgpu::BindGroupEntry> entries;
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    wgpu::BufferDescriptor bd;
    bd.size = k.buffers[i].count * 4;
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::Uniform |
               wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    buffers.push_back(device.CreateBuffer(&bd));
    device.GetQueue().WriteBuffer(buffers.back(), 0, k.buffers[i].words.data(), bd.size);
    entries.push_back({.binding = static_cast<uint32_t>(i), .buffer = buffers.back()});
  }
  const wgpu::BindGroupDescriptor bg{.layout = pipeline.GetBindGroupLayout(0),
                                     .entryCount = entries.size(),
                                     .entries = entries.data()};
  wgpu::CommandEncoder enc = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = enc.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, device.CreateBindGroup(&bg));
  pass.DispatchWorkgroups(k.dispatch[0], k.dispatch[1]);
  pass.End();
  auto out = test_support::submitAndReadBack(gpu, enc, buffers);
  for (const auto& e : errors) ADD_FAILURE() << "shim: " << e;
  if (!errors.empty()) return {};
  EXPECT_EQ(out.size(), buffers.size()) << "the readback failed";
  return out;
}

// Dawn's outputs can be saved on a machine that has Dawn (WGSL_CORPUS_SAVE=dir) and replayed
// where it has not (WGSL_CORPUS_REFERENCE=dir), e.g. on a GPU host without node.
std::vector<std::vector<uint32_t>> runOnDawnOnce(const Kernel& k);

std::vector<std::vector<uint32_t>> runOnDawn(const Kernel& k) {
  if (const char* ref = std::getenv("WGSL_CORPUS_REFERENCE")) {
    const nlohmann::json saved =
        nlohmann::json::parse(std::ifstream(fs::path(ref) / (k.name + ".json")));
    return saved.get<std::vector<std::vector<uint32_t>>>();
  }
  auto out = runOnDawnOnce(k);
  if (const char* save = std::getenv("WGSL_CORPUS_SAVE")) {
    fs::create_directories(save);
    std::ofstream(fs::path(save) / (k.name + ".json")) << nlohmann::json(out).dump();
  }
  return out;
}

std::vector<std::vector<uint32_t>> runOnDawnOnce(const Kernel& k) {
  nlohmann::json job;
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    job["buffers"].push_back(
        {{"size", k.buffers[i].count * 4}, {"dtype", "u32"}, {"data", k.buffers[i].words}});
    job["read"].push_back(i);
  }
  std::vector<size_t> bindings(k.buffers.size());
  for (size_t i = 0; i < bindings.size(); ++i) bindings[i] = i;
  job["kernels"].push_back(
      {{"label", k.name}, {"wgsl", k.source}, {"bindings", bindings}, {"dispatch", k.dispatch}});
  const fs::path dir =
      fs::temp_directory_path() / ("tg_wgsl_" + k.name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "job.json") << job.dump();
  const std::string cmd = "EGL_PLATFORM=surfaceless XDG_RUNTIME_DIR=/tmp " TG_NODE
                          " " TG_DAWN_RUNNER " " +
                          (dir / "job.json").string() + " " + (dir / "result.json").string() +
                          " 2>" + (dir / "stderr.txt").string();
  std::vector<std::vector<uint32_t>> out;
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream err(dir / "stderr.txt");
    ADD_FAILURE() << "Dawn runner failed: " << std::string(std::istreambuf_iterator<char>(err), {});
    return out;
  }
  const nlohmann::json result = nlohmann::json::parse(std::ifstream(dir / "result.json"));
  for (const auto& e : result["errors"]) ADD_FAILURE() << "dawn: " << e.get<std::string>();
  for (size_t i = 0; i < k.buffers.size(); ++i)
    out.push_back(result["buffers"][std::to_string(i)].get<std::vector<uint32_t>>());
  fs::remove_all(dir);
  return out;
}

class Corpus : public ::testing::TestWithParam<fs::path> {};

TEST_P(Corpus, TranslatesValidatesAndMatchesDawn) {
  const Kernel k = load(GetParam());
  ASSERT_FALSE(k.buffers.empty()) << "no tg-buffer header in " << k.name;
  const wgsl::Result r = wgsl::translate(k.source);
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  const auto ours = runOnShim(k);
  const auto dawn = runOnDawn(k);
  ASSERT_EQ(ours.size(), k.buffers.size());
  ASSERT_EQ(dawn.size(), k.buffers.size());
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    int reported = 0;
    for (size_t i = 0; i < k.buffers[b].count && reported < 5; ++i) {
      const uint32_t x = ours[b][i], y = dawn[b][i];
      if (k.buffers[b].dtype == "f32") {
        const float fx = std::bit_cast<float>(x), fy = std::bit_cast<float>(y);
        const bool same = x == y || (std::isnan(fx) && std::isnan(fy)) ||
                          std::abs(double{fx} - double{fy}) <= 1e-7 + k.rtol * std::abs(double{fy});
        if (!same)
          ADD_FAILURE() << "binding " << b << "[" << i << "]: ours " << fx << " vs dawn " << fy,
              ++reported;
      } else if (x != y) {
        ADD_FAILURE() << "binding " << b << "[" << i << "]: ours " << std::bit_cast<int32_t>(x)
                      << " vs dawn " << std::bit_cast<int32_t>(y);
        ++reported;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Corpus, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<fs::path>& p) {
                           return p.param.stem().string();
                         });

// An override in @workgroup_size is a specialization constant: the pipeline's constant, not the
// default, sets how many invocations a workgroup has.
TEST(Corpus, WorkgroupSizeOverrideTakesThePipelineConstant) {
  const std::string source = R"(override wg : u32 = 64;
@group(0) @binding(0) var<storage, read_write> out : array<atomic<u32>>;
@compute @workgroup_size(wg) fn main(@builtin(local_invocation_index) lid : u32) {
  atomicAdd(&out[0], 1u);
  atomicMax(&out[1], lid);
})";
  const wgsl::Result r = wgsl::translate(source);
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(r.reflection.workgroupSize, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(r.reflection.workgroupSizeOverrides[0], "wg");
  std::vector<std::string> errors;
  const test_support::DefaultDevice gpu = test_support::openDefaultDevice(errors);
  ASSERT_TRUE(gpu.device) << errors.front();
  wgpu::ShaderSourceWGSL src;
  src.code = source;
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &src;
  const wgpu::ShaderModule module = gpu.device.CreateShaderModule(&md);
  for (const auto& [constants, count, maxIndex] :
       {std::tuple{std::vector<wgpu::ConstantEntry>{}, 2u * 64u, 63u},
        std::tuple{std::vector<wgpu::ConstantEntry>{{.key = "wg", .value = 32}}, 2u * 32u, 31u}}) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = module;
    pd.compute.constantCount = constants.size();
    pd.compute.constants = constants.data();
    const wgpu::ComputePipeline pipeline = gpu.device.CreateComputePipeline(&pd);
    wgpu::BufferDescriptor bd;
    bd.size = 8;
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    const wgpu::Buffer buffer = gpu.device.CreateBuffer(&bd);
    const uint32_t zero[2] = {0, 0};
    gpu.device.GetQueue().WriteBuffer(buffer, 0, zero, 8);
    const wgpu::BindGroupEntry entry{.binding = 0, .buffer = buffer};
    const wgpu::BindGroupDescriptor bg{
        .layout = pipeline.GetBindGroupLayout(0), .entryCount = 1, .entries = &entry};
    wgpu::CommandEncoder enc = gpu.device.CreateCommandEncoder();
    wgpu::ComputePassEncoder pass = enc.BeginComputePass();
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, gpu.device.CreateBindGroup(&bg));
    pass.DispatchWorkgroups(2);
    pass.End();
    const auto out = test_support::submitAndReadBack(gpu, enc, {buffer});
    ASSERT_TRUE(errors.empty()) << errors.front();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0][0], count) << "invocations";
    EXPECT_EQ(out[0][1], maxIndex) << "largest local_invocation_index";
  }
}

// Every corpus kernel translates in one process, one after another (speed is bench/'s business:
// compile_bench; a wall-clock bound here failed on a loaded 2-core machine).
TEST(Corpus, WholeCorpusTranslates) {
  std::vector<std::string> sources;
  for (const auto& p : corpus()) sources.push_back(load(p).source);
  ASSERT_GE(sources.size(), 12u);
  for (size_t i = 0; i < sources.size(); ++i) EXPECT_TRUE(wgsl::translate(sources[i]).ok()) << corpus()[i];
}

TEST(Wgslc, WritesSpirvAndFailsWithDiagnostics) {
  const fs::path dir = fs::temp_directory_path() / ("tg_wgslc_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.wgsl") << "fn main() { let x = ; }\n";
  const std::string bad = std::string(TG_WGSLC) + " " + (dir / "bad.wgsl").string() + " -o " +
                          (dir / "bad.spv").string() + " 2>" + (dir / "err.txt").string();
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::ifstream err(dir / "err.txt");
  const std::string message(std::istreambuf_iterator<char>(err), {});
  EXPECT_NE(message.find("error: 1:21: expected an expression"), std::string::npos) << message;
  const fs::path good = corpus().front();
  const std::string ok = std::string(TG_WGSLC) + " " + good.string() + " -o " +
                         (dir / "good.spv").string() + " --reflect > " +
                         (dir / "reflect.json").string();
  EXPECT_EQ(std::system(ok.c_str()), 0);
  EXPECT_GT(fs::file_size(dir / "good.spv"), 20u);
  const nlohmann::json reflect = nlohmann::json::parse(std::ifstream(dir / "reflect.json"));
  EXPECT_EQ(reflect["entryPoint"], "main");
  const std::string views = std::string(TG_WGSLC) + " " + good.string() + " --glsl --spirv-asm > " +
                            (dir / "views.txt").string();
  EXPECT_EQ(std::system(views.c_str()), 0);
  std::ifstream viewsIn(dir / "views.txt");
  const std::string text(std::istreambuf_iterator<char>(viewsIn), {});
  EXPECT_NE(text.find("#version 450"), std::string::npos);            // readable GLSL (SPIRV-Cross)
  EXPECT_NE(text.find("OpEntryPoint GLCompute"), std::string::npos);  // disassembly
  fs::remove_all(dir);
}

}  // namespace
