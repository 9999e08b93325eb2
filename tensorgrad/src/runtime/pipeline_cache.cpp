#include "pipeline_cache.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <tuple>

#include "cache_files.h"
#include "tensorgrad/runtime.h"
#include "wgsl_subset/wgsl_subset.h"

namespace tg::detail {

namespace {

// Bump when the entry layout changes: old entries stop matching.
constexpr std::string_view kEntryMagic = "tensorgrad-spirv-v3\n";
// Which translator made an entry: a digest of wgsl_subset's sources and the glslang and
// SPIRV-Tools versions (tensorgrad/CMakeLists.txt). An entry from another translator is a miss.
#ifndef TG_TRANSLATOR_ID
#define TG_TRANSLATOR_ID "unknown"
#endif
constexpr std::string_view kTranslatorId = TG_TRANSLATOR_ID;

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string kernelName(const KernelSpec& k) {
  return std::string(opKindName(k.kind)) + " (op #" + std::to_string(k.opIndex) + ")";
}

// A module's interface as text: workgroup size, then each binding (group, binding, storage or
// uniform, read-only or read-write) in (group, binding) order. What the bind group layouts and
// the dispatch depend on.
struct Binding {
  uint32_t group, binding;
  bool uniform, readOnly;
  bool operator<(const Binding& o) const { return std::tie(group, binding) < std::tie(o.group, o.binding); }
};
std::string interfaceText(const std::array<uint32_t, 3>& workgroup, std::vector<Binding> bindings) {
  std::sort(bindings.begin(), bindings.end());
  std::string s = "workgroup " + std::to_string(workgroup[0]) + " " + std::to_string(workgroup[1]) +
                  " " + std::to_string(workgroup[2]) + "\n";
  for (const Binding& b : bindings) {
    s += "binding " + std::to_string(b.group) + " " + std::to_string(b.binding) +
         (b.uniform ? " uniform" : b.readOnly ? " storage-read" : " storage-read-write") + "\n";
  }
  return s;
}

// The interface the translator reported for the WGSL.
std::string interfaceText(const wgsl::Reflection& r) {
  std::vector<Binding> bindings;
  for (const auto& b : r.bindings)
    bindings.push_back({b.group, b.binding, b.kind == wgsl::BindingInfo::Kind::Uniform, b.readOnly});
  return interfaceText(r.workgroupSize, std::move(bindings));
}

// The interface the SPIR-V itself declares, reflected as the shim reflects it; empty when it
// cannot be reflected or has no single compute entry point.
std::string interfaceText(const std::vector<uint32_t>& spirv) {
  try {
    spirv_cross::Compiler compiler(spirv);
    std::string out;
    int computeEntries = 0;
    for (const auto& ep : compiler.get_entry_points_and_stages()) {
      if (ep.execution_model != spv::ExecutionModelGLCompute) continue;
      ++computeEntries;
      compiler.set_entry_point(ep.name, ep.execution_model);
      const auto& entry = compiler.get_entry_point(ep.name, ep.execution_model);
      const auto resources = compiler.get_shader_resources(compiler.get_active_interface_variables());
      std::vector<Binding> bindings;
      for (const auto& res : resources.storage_buffers) {
        bindings.push_back({compiler.get_decoration(res.id, spv::DecorationDescriptorSet),
                            compiler.get_decoration(res.id, spv::DecorationBinding), false,
                            compiler.get_buffer_block_flags(res.id).get(spv::DecorationNonWritable)});
      }
      for (const auto& res : resources.uniform_buffers) {
        bindings.push_back({compiler.get_decoration(res.id, spv::DecorationDescriptorSet),
                            compiler.get_decoration(res.id, spv::DecorationBinding), true, true});
      }
      out = interfaceText({entry.workgroup_size.x, entry.workgroup_size.y, entry.workgroup_size.z},
                          std::move(bindings));
    }
    return computeEntries == 1 ? out : std::string();
  } catch (const std::exception&) {
    return {};
  }
}

// Whether an interface fits the kernel: @group(0) @binding(0..n-1) for its n buffers and its
// workgroup size, as the executor binds and dispatches it.
bool fitsKernel(const std::string& interface, const KernelSpec& kernel) {
  std::string want = "workgroup " + std::to_string(kernel.workgroupSize) + " 1 1\n";
  size_t bindings = 0;
  for (size_t at = interface.find("\nbinding "); at != std::string::npos;
       at = interface.find("\nbinding ", at + 1)) {
    if (interface.compare(at + 1, 10 + std::to_string(bindings).size() + 1,
                          "binding 0 " + std::to_string(bindings) + " ") != 0)
      return false;
    ++bindings;
  }
  return interface.compare(0, want.size(), want) == 0 && bindings == kernel.bindings.size();
}

// A digest binding an entry's SPIR-V to its WGSL: an entry whose words were replaced (another
// kernel's code, even with the same interface; a torn write) no longer matches it.
uint64_t entryChecksum(std::string_view wgsl, std::string_view words) {
  return fnv1a(words) ^ (fnv1a(wgsl) * 0x9e3779b97f4a7c15ull);
}

// An entry is the magic, the checksum (u64), the translator's id, the WGSL it was made from
// (compared in full, so a hash collision cannot return the wrong code), the translator's
// reflection of it, and the SPIR-V words; each string prefixed with its u64 length. It is used
// only when all of them match this kernel, the checksum matches the WGSL and words, and the
// SPIR-V's own interface is the one recorded: an entry holding other code (another kernel's, an
// older translator's) is a miss, translated again and rewritten.
std::optional<std::vector<uint32_t>> readEntry(const std::filesystem::path& path,
                                               const KernelSpec& kernel) {
  const std::optional<std::string> bytes = readCacheFile(path);
  if (!bytes) return std::nullopt;
  if (bytes->compare(0, kEntryMagic.size(), kEntryMagic) != 0) return std::nullopt;
  size_t at = kEntryMagic.size();
  uint64_t checksum = 0;
  if (bytes->size() - at < 8) return std::nullopt;
  std::memcpy(&checksum, bytes->data() + at, 8);
  at += 8;
  auto field = [&]() -> std::optional<std::string_view> {
    uint64_t size = 0;
    if (bytes->size() - at < 8) return std::nullopt;
    std::memcpy(&size, bytes->data() + at, 8);
    at += 8;
    if (bytes->size() - at < size) return std::nullopt;
    std::string_view out(bytes->data() + at, size);
    at += size;
    return out;
  };
  const auto translator = field();
  if (!translator || *translator != kTranslatorId) return std::nullopt;
  const auto wgsl = field();
  if (!wgsl || *wgsl != kernel.wgsl) return std::nullopt;
  const auto interface = field();
  if (!interface || !fitsKernel(std::string(*interface), kernel)) return std::nullopt;
  if ((bytes->size() - at) % 4 != 0 || bytes->size() == at) return std::nullopt;
  if (entryChecksum(*wgsl, std::string_view(*bytes).substr(at)) != checksum) return std::nullopt;
  std::vector<uint32_t> words((bytes->size() - at) / 4);
  std::memcpy(words.data(), bytes->data() + at, words.size() * 4);
  if (words[0] != 0x07230203u) return std::nullopt;  // the SPIR-V magic
  if (interfaceText(words) != *interface) return std::nullopt;
  return words;
}

void writeEntry(const std::filesystem::path& path, const std::string& wgsl,
                const std::string& interface, const std::vector<uint32_t>& words) {
  std::string bytes(kEntryMagic);
  const std::string_view code(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  const uint64_t checksum = entryChecksum(wgsl, code);
  bytes.append(reinterpret_cast<const char*>(&checksum), 8);
  for (std::string_view text : {kTranslatorId, std::string_view(wgsl), std::string_view(interface)}) {
    const uint64_t size = text.size();
    bytes.append(reinterpret_cast<const char*>(&size), 8);
    bytes += text;
  }
  bytes += code;
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
    std::string interface;  // translated: the translator's reflection, for the entry
    std::string diagnostics;
  };
  std::vector<Job> jobs;
  for (const KernelSpec& k : kernels) {
    if (k.wgsl.empty() || pipelines_.count(k.wgsl) || prepared_.count(k.wgsl)) continue;
    prepared_[k.wgsl];
    Job& job = jobs.emplace_back(Job{&k});
    if (!dir_.empty()) {
      if (auto words = readEntry(entryPath(k.wgsl), k)) {
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
        job.interface = interfaceText(r.reflection);
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
    if (!dir_.empty() && !job.fromDisk) writeEntry(entryPath(wgsl), wgsl, job.interface, job.spirv);
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
  const std::string label(opKindName(kernel.kind));
  md.label = label;
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
