#include "pipeline_cache.h"

#include "tensorgrad/runtime.h"

namespace tg::detail {

namespace {

std::string kernelName(const KernelSpec& k) {
  return std::string(opKindName(k.kind)) + " (op #" + std::to_string(k.opIndex) + ")";
}

// "error: <line>:<col>: <message>", the source line and a caret under the column.
std::string renderDiagnostic(const std::string& source, const wgpu::CompilationMessage& m) {
  size_t start = 0;
  for (uint64_t l = 1; l < m.lineNum && start != std::string::npos; ++l) {
    start = source.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  std::string line;
  if (start != std::string::npos) line = source.substr(start, source.find('\n', start) - start);
  std::string caret(m.linePos > 0 ? m.linePos - 1 : 0, ' ');
  for (size_t i = 0; i < caret.size() && i < line.size(); ++i) {
    if (line[i] == '\t') caret[i] = '\t';
  }
  return "error: " + std::to_string(m.lineNum) + ":" + std::to_string(m.linePos) + ": " +
         std::string(std::string_view(m.message)) + "\n" + line + "\n" + caret + "^";
}

}  // namespace

PipelineCache::PipelineCache(wgpu::Instance instance, wgpu::Device device)
    : instance_(std::move(instance)), device_(std::move(device)) {}

PipelineCache::~PipelineCache() {
  for (auto& [wgsl, entry] : prepared_) {
    if (entry.build.id != 0) instance_.WaitAny(entry.build, UINT64_MAX);
  }
}

void PipelineCache::prepare(const std::vector<KernelSpec>& kernels) {
  std::vector<const KernelSpec*> fresh;
  for (const KernelSpec& k : kernels) {
    if (k.wgsl.empty() || pipelines_.count(k.wgsl) || prepared_.count(k.wgsl)) continue;
    prepared_[k.wgsl];
    fresh.push_back(&k);
  }
  if (fresh.empty()) return;
  // A module's WGSL error is its kernel's (get() throws it), not a device error for the next call.
  device_.PushErrorScope(wgpu::ErrorFilter::Validation);
  // All modules before any pipeline: the shim starts translating each at once, so they translate
  // in parallel while the pipelines below wait for theirs in turn.
  for (const KernelSpec* k : fresh) {
    wgpu::ShaderSourceWGSL source;
    source.code = k->wgsl;
    wgpu::ShaderModuleDescriptor md;
    md.nextInChain = &source;
    md.label = opKindName(k->kind);
    prepared_.at(k->wgsl).module = device_.CreateShaderModule(&md);
  }
  for (const KernelSpec* k : fresh) {
    Prepared& entry = prepared_.at(k->wgsl);
    wgpu::ComputePipelineDescriptor pd;
    pd.label = opKindName(k->kind);
    pd.compute.module = entry.module;
    // The entry stays put until get() has waited for this callback (map nodes do not move).
    entry.build = device_.CreateComputePipelineAsync(
        &pd, wgpu::CallbackMode::WaitAnyOnly,
        [&entry](wgpu::CreatePipelineAsyncStatus status, wgpu::ComputePipeline pipeline,
                 std::string_view message) {
          if (status == wgpu::CreatePipelineAsyncStatus::Success) {
            entry.pipeline = std::move(pipeline);
          } else {
            entry.error = message;
          }
        });
  }
  instance_.WaitAny(device_.PopErrorScope(wgpu::CallbackMode::WaitAnyOnly,
                                          [](wgpu::PopErrorScopeStatus, wgpu::ErrorType,
                                             std::string_view) {}),
                    UINT64_MAX);
}

std::string PipelineCache::diagnostics(const wgpu::ShaderModule& module,
                                       const std::string& wgsl) const {
  std::string out;
  instance_.WaitAny(
      module.GetCompilationInfo(wgpu::CallbackMode::WaitAnyOnly,
                                [&](wgpu::CompilationInfoRequestStatus, const wgpu::CompilationInfo* info) {
                                  if (!info) return;
                                  for (size_t i = 0; i < info->messageCount; ++i) {
                                    const wgpu::CompilationMessage& m = info->messages[i];
                                    if (m.lineNum != 0) out += renderDiagnostic(wgsl, m) + "\n";
                                  }
                                }),
      UINT64_MAX);
  return out;
}

wgpu::ComputePipeline PipelineCache::get(const KernelSpec& kernel) {
  if (auto it = pipelines_.find(kernel.wgsl); it != pipelines_.end()) return it->second;
  if (!prepared_.count(kernel.wgsl)) prepare({kernel});
  Prepared& entry = prepared_.at(kernel.wgsl);
  if (entry.build.id != 0) instance_.WaitAny(entry.build, UINT64_MAX);
  auto node = prepared_.extract(kernel.wgsl);
  const Prepared& done = node.mapped();
  if (!done.error.empty() || !done.pipeline) {
    if (const std::string d = diagnostics(done.module, kernel.wgsl); !d.empty()) {
      throw CompileError("tensorgrad: kernel " + kernelName(kernel) + " does not translate:\n" + d +
                         "\n--- WGSL ---\n" + kernel.wgsl);
    }
    throw CompileError("tensorgrad: the device rejected kernel " + kernelName(kernel) + ": " +
                       done.error + "\n--- WGSL ---\n" + kernel.wgsl);
  }
  pipelines_.emplace(kernel.wgsl, done.pipeline);
  return done.pipeline;
}

}  // namespace tg::detail
