// Runs WGSL compute entry points through webgpu_shim on given buffer contents: the native half of
// the Tint-corpus execution differential (tests/wgsl/tint_exec.mjs runs the same jobs on Dawn for
// Node and compares). Not a ctest: the corpus is not in the repository.
//
//   wgsl_run plan FILE.wgsl   JSON on stdout: {"entries": [{"entry", "workgroupSize",
//                             "bindings": [{"group", "binding", "type", "size"}]} or
//                             {"entry", "skip": reason}]}. The bindings are those the entry point
//                             uses (its layout "auto"), as the shim reflects them; "type" is
//                             storage | read-only-storage | uniform; "size" is the store type's
//                             size, a runtime-sized array counted with 64 elements, rounded up to 16.
//   wgsl_run run JOB.json     JOB: {"wgsl": path, "runs": [{"entry", "dispatch": [x, y, z],
//                             "bindings": [as plan gives], "input": path, "output": path}]}.
//                             Each run: fresh buffers filled from `input` (the bindings' bytes, one
//                             after another), layout "auto", one dispatch, every buffer read back
//                             into `output` (same order). JSON on stdout: {"runs": [{"errors": [...]}]}.
#include <spirv_cross/spirv_cross.hpp>
#include <webgpu/webgpu_cpp.h>

#include <wgsl_subset/wgsl_subset.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "default_device.h"

using nlohmann::json;

namespace {

constexpr uint32_t kRuntimeArrayElements = 64;

std::string readText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The bindings one translated entry point uses, with the sizes the differential gives them.
json planBindings(const std::vector<uint32_t>& spirv) {
  spirv_cross::Compiler compiler(spirv);
  const auto resources = compiler.get_shader_resources(compiler.get_active_interface_variables());
  json out = json::array();
  auto add = [&](const spirv_cross::Resource& res, const char* type) {
    const spirv_cross::SPIRType& block = compiler.get_type(res.base_type_id);
    const size_t size = compiler.get_declared_struct_size_runtime_array(block, kRuntimeArrayElements);
    out.push_back({{"group", compiler.get_decoration(res.id, spv::DecorationDescriptorSet)},
                   {"binding", compiler.get_decoration(res.id, spv::DecorationBinding)},
                   {"type", type},
                   {"size", std::max<size_t>(16, (size + 15) / 16 * 16)}});
  };
  for (const auto& res : resources.storage_buffers) {
    const bool readOnly = compiler.get_buffer_block_flags(res.id).get(spv::DecorationNonWritable);
    add(res, readOnly ? "read-only-storage" : "storage");
  }
  for (const auto& res : resources.uniform_buffers) add(res, "uniform");
  return out;
}

int plan(const std::string& path) {
  const std::string source = readText(path);
  const wgsl::Result first = wgsl::translate(source);
  json entries = json::array();
  for (const std::string& entry : first.reflection.entryPoints) {
    wgsl::Options options;
    options.entryPoint = entry;
    const wgsl::Result r = wgsl::translate(source, options);
    if (!r.ok()) {
      entries.push_back({{"entry", entry}, {"skip", "wgslc: " + r.diagnostics.front().message}});
      continue;
    }
    std::string noDefault;
    for (const auto& o : r.reflection.overrides)
      if (!o.defaultValue) noDefault = o.name;
    if (!noDefault.empty()) {
      entries.push_back({{"entry", entry}, {"skip", "override without a default: " + noDefault}});
      continue;
    }
    entries.push_back({{"entry", entry},
                       {"workgroupSize", r.reflection.workgroupSize},
                       {"bindings", planBindings(r.spirv)}});
  }
  std::cout << json{{"entries", entries}}.dump() << "\n";
  return first.reflection.entryPoints.empty() && !first.ok() ? 1 : 0;
}

// Creation steps inside a validation error scope: the first error's text, or "".
std::string scoped(const test_support::DefaultDevice& d, const std::function<void()>& step) {
  std::string message;
  d.device.PushErrorScope(wgpu::ErrorFilter::Validation);
  step();
  d.instance.WaitAny(d.device.PopErrorScope(wgpu::CallbackMode::WaitAnyOnly,
                                            [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType type, wgpu::StringView m) {
                                              if (type != wgpu::ErrorType::NoError) message = std::string(m);
                                            }),
                     UINT64_MAX);
  return message;
}

json runOne(const test_support::DefaultDevice& d, const std::string& wgslText, const json& run,
            std::vector<std::string>& uncaptured) {
  json errors = json::array();
  const json& bindings = run["bindings"];
  const std::string input = readText(run["input"]);
  std::vector<wgpu::Buffer> buffers;
  size_t offset = 0;
  for (const json& b : bindings) {
    wgpu::BufferDescriptor desc;
    desc.size = b["size"];
    desc.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopySrc |
                 wgpu::BufferUsage::CopyDst;
    buffers.push_back(d.device.CreateBuffer(&desc));
    if (offset + desc.size > input.size()) {
      errors.push_back("input file too short");
      return {{"errors", errors}};
    }
    d.device.GetQueue().WriteBuffer(buffers.back(), 0, input.data() + offset, desc.size);
    offset += desc.size;
  }
  const std::string entry = run["entry"];
  wgpu::ComputePipeline pipeline;
  std::string error = scoped(d, [&] {
    wgpu::ShaderSourceWGSL source{{.code = wgslText.c_str()}};
    wgpu::ShaderModuleDescriptor md{.nextInChain = &source};
    wgpu::ComputePipelineDescriptor pd{.compute = {.module = d.device.CreateShaderModule(&md),
                                                   .entryPoint = entry.c_str()}};
    pipeline = d.device.CreateComputePipeline(&pd);
  });
  if (!error.empty()) return {{"errors", {"pipeline: " + error}}};
  uint32_t groupCount = 0;
  for (const json& b : bindings) groupCount = std::max<uint32_t>(groupCount, uint32_t(b["group"]) + 1);
  std::vector<wgpu::BindGroup> groups(groupCount);
  error = scoped(d, [&] {
    for (uint32_t g = 0; g < groupCount; ++g) {
      std::vector<wgpu::BindGroupEntry> entries;
      for (size_t i = 0; i < bindings.size(); ++i) {
        if (bindings[i]["group"] != g) continue;
        entries.push_back({.binding = bindings[i]["binding"], .buffer = buffers[i]});
      }
      wgpu::BindGroupDescriptor bd{.layout = pipeline.GetBindGroupLayout(g),
                                   .entryCount = entries.size(),
                                   .entries = entries.data()};
      groups[g] = d.device.CreateBindGroup(&bd);
    }
  });
  if (!error.empty()) return {{"errors", {"bind group: " + error}}};
  wgpu::CommandEncoder encoder = d.device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  for (uint32_t g = 0; g < groupCount; ++g) pass.SetBindGroup(g, groups[g]);
  pass.DispatchWorkgroups(run["dispatch"][0], run["dispatch"][1], run["dispatch"][2]);
  pass.End();
  const auto words = test_support::submitAndReadBack(d, encoder, buffers);
  for (const std::string& e : uncaptured) errors.push_back("uncaptured: " + e);
  uncaptured.clear();
  if (words.size() != buffers.size()) {
    errors.push_back("read-back failed");
    return {{"errors", errors}};
  }
  std::ofstream out(run["output"].get<std::string>(), std::ios::binary);
  for (const auto& w : words) out.write(reinterpret_cast<const char*>(w.data()), std::streamsize(w.size() * 4));
  return {{"errors", errors}};
}

int runJob(const std::string& jobPath) {
  const json job = json::parse(readText(jobPath));
  const std::string wgslText = readText(job["wgsl"]);
  std::vector<std::string> uncaptured;
  const test_support::DefaultDevice d = test_support::openDefaultDevice(uncaptured);
  if (!d.device) {
    std::cerr << "wgsl_run: " << (uncaptured.empty() ? "no device" : uncaptured.front()) << "\n";
    return 2;
  }
  json runs = json::array();
  for (const json& run : job["runs"]) runs.push_back(runOne(d, wgslText, run, uncaptured));
  std::cout << json{{"runs", runs}}.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  try {
    if (mode == "plan") return plan(argv[2]);
    if (mode == "run") return runJob(argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "wgsl_run: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "usage: wgsl_run plan FILE.wgsl | wgsl_run run JOB.json\n";
  return 2;
}
