// WGSL shader modules: translated on the device's worker threads (many pipelines created in a row
// translate at once), their SPIR-V kept in the device's blob cache (DawnCacheDeviceDescriptor),
// and their errors reported where they would have gone had the module compiled at creation.
#include <map>
#include <mutex>
#include <span>

#include "shim_test.h"

namespace shim_test {
namespace {

// b[i] = a[i] * k + 1, one distinct WGSL text per k.
std::string Wgsl(uint32_t k) {
  return "@group(0) @binding(0) var<storage, read> a : array<u32>;\n"
         "@group(0) @binding(1) var<storage, read_write> b : array<u32>;\n"
         "@compute @workgroup_size(64)\n"
         "fn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n"
         "  if (gid.x < arrayLength(&a)) { b[gid.x] = a[gid.x] * " +
         std::to_string(k) + "u + 1u; }\n}\n";
}

// An in-memory blob cache; its callbacks come from several threads at once, and may outlive the
// test's handle on it (the fixture's device stores its pipeline cache when it goes).
struct MemoryBlobCache {
  struct State {
    std::mutex mutex;
    std::map<std::string, std::string> entries;
  };
  std::shared_ptr<State> state = std::make_shared<State>();

  wgpu::DawnCacheDeviceDescriptor Descriptor() const {
    wgpu::DawnCacheDeviceDescriptor cache{{.isolationKey = "test "}};
    cache.SetLoadCacheDataCallback([s = state](std::span<const std::byte> key, std::span<std::byte> value) {
      std::lock_guard lock(s->mutex);
      auto it = s->entries.find(std::string(reinterpret_cast<const char*>(key.data()), key.size()));
      if (it == s->entries.end()) return size_t{0};
      if (!value.empty()) std::memcpy(value.data(), it->second.data(), std::min(value.size(), it->second.size()));
      return it->second.size();
    });
    cache.SetStoreCacheDataCallback([s = state](std::span<const std::byte> key, std::span<const std::byte> value) {
      std::lock_guard lock(s->mutex);
      s->entries[std::string(reinterpret_cast<const char*>(key.data()), key.size())] =
          std::string(reinterpret_cast<const char*>(value.data()), value.size());
    });
    return cache;
  }
  // The SPIR-V entries (key, bytes).
  std::map<std::string, std::string> Spirv() const {
    std::lock_guard lock(state->mutex);
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : state->entries)
      if (k.rfind("test wgsl-spirv-", 0) == 0) out[k] = v;
    return out;
  }
  void Set(const std::string& key, const std::string& bytes) const {
    std::lock_guard lock(state->mutex);
    state->entries[key] = bytes;
  }
};

class WgslModule : public ShimTest {
 protected:
  // Replaces the fixture's device with one on `cache` (a new device: nothing in memory).
  void UseDeviceWith(MemoryBlobCache& cache) {
    if (device) WaitIdle();
    wgpu::DawnCacheDeviceDescriptor hooks = cache.Descriptor();
    wgpu::DeviceDescriptor desc;
    desc.nextInChain = &hooks;
    desc.SetUncapturedErrorCallback([this](const wgpu::Device&, wgpu::ErrorType type, std::string_view m) {
      uncaptured.push_back({type, std::string(m)});
    });
    device = nullptr;
    Wait(adapter.RequestDevice(&desc, wgpu::CallbackMode::AllowProcessEvents,
                               [&](wgpu::RequestDeviceStatus, wgpu::Device d, std::string_view) { device = d; }));
    ASSERT_TRUE(device);
    queue = device.GetQueue();
  }
  wgpu::ShaderModule WgslModuleOf(const std::string& code, const char* label = "k") {
    wgpu::ShaderSourceWGSL source;
    source.code = code;
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &source;
    md.label = label;
    return device.CreateShaderModule(&md);
  }
  wgpu::ComputePipeline PipelineOf(const std::string& code) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = WgslModuleOf(code);
    return device.CreateComputePipeline(&pd);
  }
  // Runs `pipeline` (one of Wgsl(k)) on 0..99 and checks b = a * k + 1.
  void ExpectComputes(const wgpu::ComputePipeline& pipeline, uint32_t k) {
    std::vector<uint32_t> a(100);
    for (uint32_t i = 0; i < a.size(); ++i) a[i] = i;
    auto in = Upload(a, wgpu::BufferUsage::Storage);
    auto out = MakeBuffer(a.size() * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc);
    auto encoder = device.CreateCommandEncoder();
    auto pass = encoder.BeginComputePass();
    pass.SetPipeline(pipeline);
    pass.SetBindGroup(0, Group(pipeline, 0, {in, out}));
    pass.DispatchWorkgroups(2);
    pass.End();
    Submit(encoder);
    const auto b = Read<uint32_t>(out, a.size());
    for (uint32_t i = 0; i < a.size(); ++i) ASSERT_EQ(b[i], i * k + 1) << "k " << k << " at " << i;
  }
};

// A shader that uses only @group(1): group 0's layout is empty and needs no bind group, as in
// Dawn; a group set at an index the shader uses is still required.
TEST_F(WgslModule, AnEmptyGroupZeroNeedsNoBindGroup) {
  const auto pipeline = PipelineOf(R"(
@group(1) @binding(0) var<storage, read_write> b : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x < arrayLength(&b)) { b[id.x] = id.x * 3u + 7u; }
})");
  ASSERT_TRUE(pipeline);
  auto out = MakeBuffer(100 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "out");
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(1, Group(pipeline, 1, {out}));
  pass.DispatchWorkgroups(2);
  pass.End();
  Submit(encoder);
  const auto b = Read<uint32_t>(out, 100);
  for (uint32_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], i * 3 + 7) << "at " << i;
  EXPECT_TRUE(uncaptured.empty());

  // Group 1 left unset is still an error that names it.
  const CapturedError missing = Capture([&] {
    auto e = device.CreateCommandEncoder();
    auto p = e.BeginComputePass();
    p.SetPipeline(pipeline);
    p.DispatchWorkgroups(1);
    p.End();
    e.Finish();
  });
  EXPECT_EQ(missing.type, wgpu::ErrorType::Validation);
  EXPECT_NE(missing.message.find("Bind group at index 1 is not set"), std::string::npos) << missing.message;
}

// Entry points keep their WGSL names, and one module may hold several, each with its own
// workgroup size and bindings (layout 'auto' takes only the bindings each one uses), as in Dawn.
TEST_F(WgslModule, EntryPointsByNameSeveralInOneModule) {
  const auto module = WgslModuleOf(R"(
@group(0) @binding(0) var<storage, read_write> first : array<u32>;
@group(0) @binding(1) var<storage, read_write> second : array<u32>;
fn shared_helper(x : u32) -> u32 { return x * 2u; }
@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x < arrayLength(&first)) { first[id.x] = shared_helper(id.x) + 1u; }
}
@compute @workgroup_size(8, 4)
fn fill_second(@builtin(global_invocation_id) id : vec3<u32>) {
  let i = id.y * 16u + id.x;
  if (i < arrayLength(&second)) { second[i] = shared_helper(i) + 5u; }
})");
  auto make = [&](const char* entry) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = module;
    pd.compute.entryPoint = entry;
    return device.CreateComputePipeline(&pd);
  };
  const auto a = make("cs_main");
  const auto b = make("fill_second");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(uncaptured.empty()) << uncaptured.front().message;
  auto outA = MakeBuffer(100 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "first");
  auto outB = MakeBuffer(64 * 4, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "second");
  auto encoder = device.CreateCommandEncoder();
  auto pass = encoder.BeginComputePass();
  pass.SetPipeline(a);
  pass.SetBindGroup(0, Group(a, 0, {outA}));  // cs_main's layout holds binding 0 only
  pass.DispatchWorkgroups(2);
  pass.SetPipeline(b);
  wgpu::BindGroupEntry entry;
  entry.binding = 1;
  entry.buffer = outB;
  wgpu::BindGroupDescriptor gd;
  gd.layout = b.GetBindGroupLayout(0);  // fill_second's: binding 1 only
  gd.entryCount = 1;
  gd.entries = &entry;
  pass.SetBindGroup(0, device.CreateBindGroup(&gd));
  pass.DispatchWorkgroups(2, 2);  // 16 x 8 invocations over 64 elements
  pass.End();
  Submit(encoder);
  const auto ra = Read<uint32_t>(outA, 100);
  for (uint32_t i = 0; i < ra.size(); ++i) ASSERT_EQ(ra[i], 2 * i + 1) << "cs_main at " << i;
  const auto rb = Read<uint32_t>(outB, 64);
  for (uint32_t i = 0; i < rb.size(); ++i) ASSERT_EQ(rb[i], 2 * i + 5) << "fill_second at " << i;
  EXPECT_TRUE(uncaptured.empty());

  // With two entry points the name is required; an unknown one is named in the error.
  const CapturedError unnamed = Capture([&] { make(""); });
  EXPECT_NE(unnamed.message.find("has 2 compute entry points; the entry point must be named"), std::string::npos)
      << unnamed.message;
  const CapturedError unknown = Capture([&] { make("main"); });
  EXPECT_NE(unknown.message.find("has no compute entry point named \"main\""), std::string::npos) << unknown.message;
}

TEST_F(WgslModule, ManyAsyncPipelinesFromWgslAllBuildAndRun) {
  constexpr uint32_t kCount = 24;
  std::vector<wgpu::ShaderModule> modules;
  for (uint32_t k = 0; k < kCount; ++k) modules.push_back(WgslModuleOf(Wgsl(k + 2)));
  std::vector<wgpu::ComputePipeline> pipelines(kCount);
  std::vector<wgpu::Future> futures;
  for (uint32_t k = 0; k < kCount; ++k) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute.module = modules[k];
    futures.push_back(device.CreateComputePipelineAsync(
        &pd, wgpu::CallbackMode::WaitAnyOnly,
        [&, k](wgpu::CreatePipelineAsyncStatus status, wgpu::ComputePipeline p, std::string_view m) {
          EXPECT_EQ(status, wgpu::CreatePipelineAsyncStatus::Success) << m;
          pipelines[k] = std::move(p);
        }));
  }
  for (const wgpu::Future& f : futures) Wait(f);
  for (uint32_t k = 0; k < kCount; ++k) {
    ASSERT_TRUE(pipelines[k]) << k;
    ExpectComputes(pipelines[k], k + 2);
  }
}

TEST_F(WgslModule, SecondDeviceTakesTheSpirvFromTheBlobCacheWithoutTranslating) {
  MemoryBlobCache cache;
  UseDeviceWith(cache);
  const uint64_t before = wgpu::GetWgslTranslationCountForTesting();
  ExpectComputes(PipelineOf(Wgsl(5)), 5);
  EXPECT_EQ(wgpu::GetWgslTranslationCountForTesting(), before + 1);
  const auto stored = cache.Spirv();
  ASSERT_EQ(stored.size(), 1u);
  UseDeviceWith(cache);
  ExpectComputes(PipelineOf(Wgsl(5)), 5);
  EXPECT_EQ(wgpu::GetWgslTranslationCountForTesting(), before + 1);  // a hit: no translation
  EXPECT_EQ(cache.Spirv(), stored);                                 // and nothing rewritten
  ExpectComputes(PipelineOf(Wgsl(6)), 6);                            // other WGSL: a miss
  EXPECT_EQ(wgpu::GetWgslTranslationCountForTesting(), before + 2);
  EXPECT_EQ(cache.Spirv().size(), 2u);
}

// An entry the cache hands back damaged (garbage, cut short, a flipped bit in the SPIR-V or in
// the WGSL, another WGSL's entry) is a miss: the WGSL is translated again, the module is right,
// and the entry is rewritten whole.
TEST_F(WgslModule, DamagedBlobCacheEntriesAreTranslatedAgainAndRepaired) {
  MemoryBlobCache cache;
  UseDeviceWith(cache);
  ExpectComputes(PipelineOf(Wgsl(3)), 3);
  ExpectComputes(PipelineOf(Wgsl(4)), 4);
  auto entries = cache.Spirv();
  ASSERT_EQ(entries.size(), 2u);
  const std::string key = entries.begin()->first;
  const std::string good = entries.begin()->second;
  const std::string other = std::next(entries.begin())->second;
  const uint32_t k = good.find(Wgsl(3)) != std::string::npos ? 3 : 4;
  std::string flippedSpirv = good;
  flippedSpirv[flippedSpirv.size() - 5] ^= 0x10;
  std::string flippedWgsl = good;
  flippedWgsl[good.find("array<u32>") + 7] = 'i';
  for (const std::string& damaged :
       {std::string("garbage"), good.substr(0, good.size() / 2), flippedSpirv, flippedWgsl, other}) {
    cache.Set(key, damaged);
    UseDeviceWith(cache);
    const uint64_t before = wgpu::GetWgslTranslationCountForTesting();
    ExpectComputes(PipelineOf(Wgsl(k)), k);
    EXPECT_EQ(wgpu::GetWgslTranslationCountForTesting(), before + 1);
    EXPECT_EQ(cache.Spirv().at(key), good);
  }
}

// An entry made by another translator (its id differs; all else matches, checksum included) is
// a miss: a translator change invalidates the cache.
TEST_F(WgslModule, BlobCacheEntryFromAnotherTranslatorIsAMiss) {
  MemoryBlobCache cache;
  UseDeviceWith(cache);
  ExpectComputes(PipelineOf(Wgsl(7)), 7);
  const auto entries = cache.Spirv();
  ASSERT_EQ(entries.size(), 1u);
  const auto& [key, good] = *entries.begin();
  // The layout: the magic line, the u64 checksum, the translator id (u64 length, then the text).
  const size_t idAt = good.find('\n') + 1 + 8 + 8;
  ASSERT_EQ(good.compare(idAt, 12, "wgsl_subset-"), 0) << good.substr(0, 64);
  std::string stale = good;
  stale[idAt + 12] = stale[idAt + 12] == '0' ? '1' : '0';
  cache.Set(key, stale);
  UseDeviceWith(cache);
  const uint64_t before = wgpu::GetWgslTranslationCountForTesting();
  ExpectComputes(PipelineOf(Wgsl(7)), 7);
  EXPECT_EQ(wgpu::GetWgslTranslationCountForTesting(), before + 1);
  EXPECT_EQ(cache.Spirv().at(key), good);
}

// A WGSL module compiles after CreateShaderModule returns, yet its error goes to the scope that
// was current when it was created, not to one pushed since; its compilation info has line:col.
TEST_F(WgslModule, ErrorGoesToTheScopeCurrentAtCreation) {
  device.PushErrorScope(wgpu::ErrorFilter::Validation);
  wgpu::ShaderModule broken = WgslModuleOf("@compute @workgroup_size(1)\nfn main() {\n  let x : u32 = 1.5;\n}\n", "broken");
  const CapturedError inner = Capture([] {});
  EXPECT_EQ(inner.type, wgpu::ErrorType::NoError) << inner.message;
  CapturedError outer;
  Wait(device.PopErrorScope(wgpu::CallbackMode::WaitAnyOnly,
                            [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType type, std::string_view m) {
                              outer = {type, std::string(m)};
                            }));
  EXPECT_EQ(outer.type, wgpu::ErrorType::Validation);
  EXPECT_NE(outer.message.find("[ShaderModule \"broken\"]"), std::string::npos) << outer.message;
  EXPECT_NE(outer.message.find("error: 3:17:"), std::string::npos) << outer.message;
  // A pipeline from it fails validation naming the module, and reports nothing twice.
  wgpu::ComputePipelineDescriptor pd;
  pd.compute.module = broken;
  const CapturedError pipeline = Capture([&] { device.CreateComputePipeline(&pd); });
  EXPECT_NE(pipeline.message.find("[ShaderModule \"broken\"], which is invalid"), std::string::npos)
      << pipeline.message;
}

// With no scope, the error is uncaptured: reported once the module is resolved (here by its
// compilation info).
TEST_F(WgslModule, UnscopedErrorIsUncaptured) {
  expectUncaptured = true;
  wgpu::ShaderModule broken = WgslModuleOf("fn main( {\n", "broken");
  Wait(broken.GetCompilationInfo(wgpu::CallbackMode::WaitAnyOnly,
                                 [](wgpu::CompilationInfoRequestStatus, const wgpu::CompilationInfo*) {}));
  ASSERT_EQ(uncaptured.size(), 1u);
  EXPECT_EQ(uncaptured[0].type, wgpu::ErrorType::Validation);
  EXPECT_NE(uncaptured[0].message.find("[ShaderModule \"broken\"]"), std::string::npos);
}

// A binding's minimum size is WGSL's SizeOf of the variable's store type: a vec3<f32> is 12
// bytes (its alignment of 16 rounds only a struct or an array element up), a struct holding it
// 16, a runtime-sized array of it one 16-byte element.
TEST_F(WgslModule, MinimumBindingSizesAreWgslsSizeOf) {
  auto pipeline = PipelineOf(R"(
struct S { v : vec3<f32> }
@group(0) @binding(0) var<storage, read_write> a : vec3<f32>;
@group(0) @binding(1) var<storage, read> b : S;
@group(0) @binding(2) var<storage, read> c : array<vec3<f32>>;
@group(0) @binding(3) var<uniform> d : vec3<f32>;
@group(0) @binding(4) var<storage, read> e : array<f32, 3>;
@compute @workgroup_size(1) fn main() { a = b.v + c[0] + d + vec3<f32>(e[0], e[1], e[2]); }
)");
  const uint64_t needs[] = {12, 16, 16, 12, 12};
  auto buffer = MakeBuffer(256, wgpu::BufferUsage::Storage | wgpu::BufferUsage::Uniform, "buffer");
  // Every binding at its minimum: a valid group. Then each in turn 4 bytes short.
  auto group = [&](int shortBinding) {
    std::vector<wgpu::BindGroupEntry> entries;
    for (uint32_t i = 0; i < 5; ++i)
      entries.push_back({.binding = i, .buffer = buffer, .offset = 0,
                         .size = needs[i] - (int(i) == shortBinding ? 4 : 0)});
    wgpu::BindGroupDescriptor d{.label = "sized group", .layout = pipeline.GetBindGroupLayout(0),
                                .entryCount = entries.size(), .entries = entries.data()};
    return Capture([&] { device.CreateBindGroup(&d); });
  };
  const CapturedError fits = group(-1);
  EXPECT_EQ(fits.type, wgpu::ErrorType::NoError) << fits.message;
  for (int i = 0; i < 5; ++i) {
    const CapturedError e = group(i);
    EXPECT_EQ(e.type, wgpu::ErrorType::Validation) << "binding " << i;
    const std::string expected = "minBindingSize (" + std::to_string(needs[i]) + ")";
    EXPECT_NE(e.message.find(expected), std::string::npos) << "binding " << i << ": " << e.message;
  }
}

// WebGPU: an override without a default must be set by each pipeline whose entry point uses it
// (directly, through a callee or a constant expression), and only by those.
TEST_F(WgslModule, OverridesWithoutADefaultMustBeSetWhereUsed) {
  const std::string wgsl = R"(
override a : u32;
override b : u32 = 3u;
override c : u32;
override d : u32;
const unusedConst = 1u;
@group(0) @binding(0) var<storage, read_write> out : array<u32, 2>;
fn viaCallee() -> u32 { return c * 2u; }
@compute @workgroup_size(1) fn one() { out[0] = a + b; }
@compute @workgroup_size(1) fn two() { out[1] = viaCallee(); }
@compute @workgroup_size(1) fn three() { out[1] = b; }
)";
  auto module = WgslModuleOf(wgsl, "overrides");
  auto pipelineOf = [&](const char* entry, std::vector<wgpu::ConstantEntry> constants) {
    wgpu::ComputePipelineDescriptor pd;
    pd.label = entry;
    pd.compute = {.module = module, .entryPoint = entry, .constantCount = constants.size(),
                  .constants = constants.data()};
    return Capture([&] { device.CreateComputePipeline(&pd); });
  };
  CapturedError e = pipelineOf("one", {});
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("override \"a\" (id 0)"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("\"one\""), std::string::npos) << e.message;
  e = pipelineOf("one", {{.key = "a", .value = 1}});
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
  e = pipelineOf("two", {});  // c, through viaCallee
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("override \"c\""), std::string::npos) << e.message;
  e = pipelineOf("two", {{.key = "2", .value = 1}});  // by id
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
  e = pipelineOf("three", {});  // uses only b, which has a default; a, c, d are not its concern
  EXPECT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
}

// WGSL: `_ = &v;` is a static use of v, so layout "auto" has v's binding, as Dawn's does (a
// storage struct, a uniform and a runtime-sized array that nothing reads). A group without
// them no longer matches the layout; one with them does.
TEST_F(WgslModule, PhonyAssignmentOfAPointerKeepsItsBindingInLayoutAuto) {
  const auto pipeline = PipelineOf(R"(
struct S { a : f32, rest : array<u32> }
@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@group(0) @binding(1) var<storage, read> s : S;
@group(0) @binding(2) var<uniform> u : vec4<f32>;
@group(0) @binding(3) var<storage, read> r : array<f32>;
@compute @workgroup_size(1) fn main() {
  _ = &s;
  let p = &u;
  _ = p;
  _ = &r;
  out[0] = 7u;
})");
  ASSERT_TRUE(pipeline);
  auto out = MakeBuffer(16, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "out");
  auto in = MakeBuffer(16, wgpu::BufferUsage::Storage | wgpu::BufferUsage::Uniform, "in");
  const CapturedError outOnly = Capture([&] { Group(pipeline, 0, {out}); });
  EXPECT_EQ(outOnly.type, wgpu::ErrorType::Validation);
  wgpu::BindGroup group;
  const CapturedError all = Capture([&] { group = Group(pipeline, 0, {out, in, in, in}); });
  ASSERT_EQ(all.type, wgpu::ErrorType::NoError) << all.message;
  DispatchOne(pipeline, group);
  EXPECT_EQ(Read<uint32_t>(out, 1)[0], 7u);
}

// WebGPU checks a workgroup size an override sets at pipeline creation, with the pipeline's
// value: a default outside the limits is no error at module creation, only for a pipeline that
// keeps it, and the error names the override and the limit.
TEST_F(WgslModule, OverriddenWorkgroupSizeIsCheckedAtPipelineCreation) {
  wgpu::ShaderModule module;
  const CapturedError created = Capture([&] {
    module = WgslModuleOf(R"(
override z = 9999u;
override x : u32 = 0u;
@group(0) @binding(0) var<storage, read_write> out : array<u32, 8>;
@compute @workgroup_size(x, 1, z)
fn main(@builtin(local_invocation_id) l : vec3<u32>) { out[l.z * 2u + l.x] = l.z * 2u + l.x + 1u; }
)", "big z");
  });
  ASSERT_EQ(created.type, wgpu::ErrorType::NoError) << created.message;
  auto pipelineOf = [&](std::vector<wgpu::ConstantEntry> constants, wgpu::ComputePipeline* out) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute = {
        .module = module, .constantCount = constants.size(), .constants = constants.data()};
    return Capture([&] { *out = device.CreateComputePipeline(&pd); });
  };
  wgpu::ComputePipeline pipeline;
  CapturedError e = pipelineOf({{.key = "x", .value = 2}}, &pipeline);
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("override \"z\" sets workgroup size z to 9999, which is over "
                           "maxComputeWorkgroupSizeZ"), std::string::npos) << e.message;
  e = pipelineOf({{.key = "z", .value = 3}}, &pipeline);  // x keeps its default, 0
  EXPECT_EQ(e.type, wgpu::ErrorType::Validation);
  EXPECT_NE(e.message.find("override \"x\" sets workgroup size x to 0, which is below 1"),
            std::string::npos) << e.message;
  e = pipelineOf({{.key = "x", .value = 2}, {.key = "z", .value = 3}}, &pipeline);
  ASSERT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
  auto out = MakeBuffer(32, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "out");
  DispatchOne(pipeline, Group(pipeline, 0, {out}));
  // A (2, 1, 3) workgroup writes 6 slots.
  EXPECT_EQ(Read<uint32_t>(out, 8), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 0, 0}));
}

// @workgroup_size(2u * x, y): the sizes are computed from the pipeline's constants (y has no
// default, so a pipeline must set it), with WGSL's errors, and the dispatch runs that size.
TEST_F(WgslModule, WorkgroupSizeOverrideExpressionsAreComputedAtPipelineCreation) {
  auto module = WgslModuleOf(R"(
override x : u32 = 1u;
override y : u32;
@group(0) @binding(0) var<storage, read_write> out : array<u32, 16>;
@compute @workgroup_size(2u * x, y)
fn main(@builtin(local_invocation_index) i : u32) { out[i] = i + 1u; }
)",
                             "expression sizes");
  auto pipelineOf = [&](std::vector<wgpu::ConstantEntry> constants, wgpu::ComputePipeline* out) {
    wgpu::ComputePipelineDescriptor pd;
    pd.compute = {
        .module = module, .constantCount = constants.size(), .constants = constants.data()};
    return Capture([&] { *out = device.CreateComputePipeline(&pd); });
  };
  wgpu::ComputePipeline pipeline;
  CapturedError e = pipelineOf({}, &pipeline);
  EXPECT_NE(e.message.find("does not set override \"y\" (id 1) in compute.constants; it has no "
                           "default value and the override-expression 'y' uses it"),
            std::string::npos)
      << e.message;
  e = pipelineOf({{.key = "y", .value = 0}}, &pipeline);
  EXPECT_NE(e.message.find("'y': it is 0 (it must be greater than 0)"), std::string::npos)
      << e.message;
  e = pipelineOf({{.key = "x", .value = 2147483648.0}, {.key = "y", .value = 1}}, &pipeline);
  EXPECT_NE(e.message.find("'2u * x': it overflows"), std::string::npos) << e.message;
  e = pipelineOf({{.key = "x", .value = 600}, {.key = "y", .value = 1}}, &pipeline);
  EXPECT_NE(e.message.find("workgroup size (1200, 1, 1) exceeds the device limits"),
            std::string::npos)
      << e.message;
  e = pipelineOf({{.key = "x", .value = 3}, {.key = "y", .value = 2}}, &pipeline);
  ASSERT_EQ(e.type, wgpu::ErrorType::NoError) << e.message;
  auto out = MakeBuffer(64, wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc, "out");
  DispatchOne(pipeline, Group(pipeline, 0, {out}));
  // A (6, 2, 1) workgroup: 12 invocations.
  const auto got = Read<uint32_t>(out, 16);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], i < 12 ? i + 1 : 0) << i;
}

}  // namespace
}  // namespace shim_test
