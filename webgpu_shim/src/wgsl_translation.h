// WGSL to SPIR-V for shader modules (wgsl_subset), through the device's blob cache: a module
// whose WGSL was translated before, by the same translator, is read back instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "blob_cache.h"
#include "device_features.h"
#include "wgsl_subset/wgsl_subset.h"

namespace wgpu::detail {

struct WgslOverride {
  uint32_t id = 0;  // the SPIR-V SpecId
  std::string name;
  bool hasDefault = true;  // false: a pipeline using it must set it (WebGPU)
  double defaultValue = 0;  // as WGSL gives it (a workgroup size's is checked at pipeline creation)
};

struct WgslTranslation {
  std::vector<uint32_t> spirv;  // passed spirv-val; empty when the WGSL does not translate
  std::vector<WgslOverride> overrides;
  std::vector<wgsl::ComputedCount> computedCounts;  // override-expression array counts
  uint64_t workgroupStorageBytes = 0;  // the translator's count, in WGSL sizes
  std::string entryPoint;                // the @compute function translated
  std::vector<std::string> entryPoints;  // every @compute function of the module
  std::vector<wgsl::Diagnostic> diagnostics;  // why the WGSL does not translate
};

// Reentrant (the device's worker threads call it at once). A cache entry is used only when it
// was made from this exact WGSL by this translator, its checksum matches and its SPIR-V passes
// spirv-val; otherwise the WGSL is translated and the entry (re)written.
// `entryPoint`: the @compute function to translate (empty: the module's first, and the result
// names the others); each is its own cache entry. `features`: the device's, which decide whether
// `enable f16;` / `enable subgroups;` are allowed (part of the entry's key when any is on).
WgslTranslation TranslateWgsl(std::string_view wgsl, const std::string& entryPoint,
                              const FeatureSet& features, const BlobCache& cache);

}  // namespace wgpu::detail
