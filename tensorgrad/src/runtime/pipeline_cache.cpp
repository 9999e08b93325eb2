#include "pipeline_cache.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "cache_files.h"
#include "tensorgrad/runtime.h"
#include "wgsl_subset/wgsl_subset.h"

namespace tg::detail {

namespace {

// Bump when the translator's output for the same WGSL may change: old entries stop matching.
constexpr std::string_view kEntryMagic = "tensorgrad-spirv-v1\n";

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string kernelName(const KernelSpec& k) {
  return std::string(opKindName(k.kind)) + " (op #" + std::to_string(k.opIndex) + ")";
}

// An entry is the magic, the WGSL it was made from (compared in full, so a hash collision
// cannot return the wrong code), and the SPIR-V words.
std::optional<std::vector<uint32_t>> readEntry(const std::filesystem::path& path,
                                               const std::string& wgsl) {
  const std::optional<std::string> bytes = readCacheFile(path);
  if (!bytes) return std::nullopt;
  const size_t head = kEntryMagic.size() + 8;
  if (bytes->size() < head || bytes->compare(0, kEntryMagic.size(), kEntryMagic) != 0)
    return std::nullopt;
  uint64_t wgslSize = 0;
  std::memcpy(&wgslSize, bytes->data() + kEntryMagic.size(), 8);
  if (wgslSize != wgsl.size() || bytes->size() < head + wgslSize ||
      bytes->compare(head, wgslSize, wgsl) != 0 || (bytes->size() - head - wgslSize) % 4 != 0)
    return std::nullopt;
  std::vector<uint32_t> words((bytes->size() - head - wgslSize) / 4);
  std::memcpy(words.data(), bytes->data() + head + wgslSize, words.size() * 4);
  if (words.empty() || words[0] != 0x07230203u) return std::nullopt;  // the SPIR-V magic
  return words;
}

void writeEntry(const std::filesystem::path& path, const std::string& wgsl,
                const std::vector<uint32_t>& words) {
  std::string bytes(kEntryMagic);
  const uint64_t size = wgsl.size();
  bytes.append(reinterpret_cast<const char*>(&size), 8);
  bytes += wgsl;
  bytes.append(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  writeCacheFile(path, bytes);
}

}  // namespace

std::filesystem::path resolveCacheDir(const std::filesystem::path& configured) {
  if (configured == "none") return {};
  if (!configured.empty()) return configured;
  if (const char* dir = std::getenv("TENSORGRAD_CACHE_DIR")) {
    return std::string_view(dir) == "none" ? std::filesystem::path() : std::filesystem::path(dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "tensorgrad";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "tensorgrad";
  return {};
}

PipelineCache::PipelineCache(wgpu::Instance instance, wgpu::Device device,
                             const std::filesystem::path& dir)
    : instance_(std::move(instance)), device_(std::move(device)), dir_(resolveCacheDir(dir)) {}

PipelineCache::~PipelineCache() {
  for (auto& [wgsl, entry] : prepared_) {
    if (entry.build.id != 0) instance_.WaitAny(entry.build, UINT64_MAX);
  }
}

std::filesystem::path PipelineCache::entryPath(const std::string& wgsl) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.spv", static_cast<unsigned long long>(fnv1a(wgsl)));
  return dir_ / name;
}

void PipelineCache::prepare(const std::vector<KernelSpec>& kernels) {
  struct Job {
    const KernelSpec* kernel;
    std::vector<uint32_t> spirv;  // from the disk cache, else translated
    bool fromDisk = false;
    std::string diagnostics;
  };
  std::vector<Job> jobs;
  for (const KernelSpec& k : kernels) {
    if (k.wgsl.empty() || pipelines_.count(k.wgsl) || prepared_.count(k.wgsl)) continue;
    prepared_[k.wgsl];
    Job& job = jobs.emplace_back(Job{&k});
    if (!dir_.empty()) {
      if (auto words = readEntry(entryPath(k.wgsl), k.wgsl)) {
        job.spirv = std::move(*words);
        job.fromDisk = true;
      }
    }
  }
  // On all cores, each thread taking the next kernel: spirv-val on every module, so the shim
  // need not run it again one module at a time (a cached entry that fails it is translated
  // anew), and translation of the kernels the disk cache lacks. wgsl::translate is reentrant.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      Job& job = jobs[i];
      if (job.fromDisk && wgsl::validateSpirv(job.spirv)) continue;
      job.fromDisk = false;
      wgsl::Result r = wgsl::translate(job.kernel->wgsl);
      if (r.ok()) {
        job.spirv = std::move(r.spirv);
      } else {
        job.diagnostics = wgsl::formatDiagnostics(r.diagnostics);
      }
    }
  };
  const size_t threads = std::min<size_t>(jobs.size(), std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (Job& job : jobs) {
    const std::string& wgsl = job.kernel->wgsl;
    Prepared& entry = prepared_[wgsl];
    if (!job.diagnostics.empty()) {
      entry.diagnostics = std::move(job.diagnostics);
      continue;
    }
    if (!dir_.empty() && !job.fromDisk) writeEntry(entryPath(wgsl), wgsl, job.spirv);
    startBuild(*job.kernel, job.spirv, entry);
  }
}

void PipelineCache::startBuild(const KernelSpec& kernel, const std::vector<uint32_t>& spirv,
                               Prepared& entry) {
  wgpu::ShaderSourceSPIRV source;
  source.codeSize = static_cast<uint32_t>(spirv.size());
  source.code = spirv.data();
  source.prevalidated = true;  // prepare() ran spirv-val
  wgpu::ShaderModuleDescriptor md;
  md.nextInChain = &source;
  md.label = std::string(opKindName(kernel.kind));
  device_.PushErrorScope(wgpu::ErrorFilter::Validation);
  wgpu::ComputePipelineDescriptor pd;
  pd.label = md.label;
  pd.compute.module = device_.CreateShaderModule(&md);
  instance_.WaitAny(device_.PopErrorScope(wgpu::CallbackMode::WaitAnyOnly,
                                          [&](wgpu::PopErrorScopeStatus, wgpu::ErrorType type,
                                              std::string_view message) {
                                            if (type != wgpu::ErrorType::NoError) entry.error = message;
                                          }),
                    UINT64_MAX);
  if (!entry.error.empty()) return;
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

wgpu::ComputePipeline PipelineCache::get(const KernelSpec& kernel) {
  if (auto it = pipelines_.find(kernel.wgsl); it != pipelines_.end()) return it->second;
  if (!prepared_.count(kernel.wgsl)) prepare({kernel});
  Prepared& entry = prepared_.at(kernel.wgsl);
  if (entry.build.id != 0) instance_.WaitAny(entry.build, UINT64_MAX);
  auto node = prepared_.extract(kernel.wgsl);
  const Prepared& done = node.mapped();
  if (!done.diagnostics.empty()) {
    throw CompileError("tensorgrad: kernel " + kernelName(kernel) + " does not translate:\n" +
                       done.diagnostics + "\n--- WGSL ---\n" + kernel.wgsl);
  }
  if (!done.error.empty() || !done.pipeline) {
    throw CompileError("tensorgrad: the device rejected kernel " + kernelName(kernel) + ": " +
                       done.error + "\n--- WGSL ---\n" + kernel.wgsl);
  }
  pipelines_.emplace(kernel.wgsl, done.pipeline);
  return done.pipeline;
}

}  // namespace tg::detail
