// wgsl_subset: translates the WGSL tensorgrad's codegen emits to SPIR-V for Vulkan 1.1 compute,
// with WebGPU-style diagnostics and binding reflection. No Vulkan dependency.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgsl {

struct Diagnostic {
  uint32_t line = 0, column = 0;  // 1-based
  std::string message{};
  // "error: <line>:<col>: <message>\n<source line>\n<caret>"
  std::string rendered{};
};

struct BindingInfo {
  uint32_t group = 0, binding = 0;
  enum class Kind { Storage, Uniform } kind = Kind::Storage;
  bool readOnly = true;       // storage: read (true) or read_write (false)
  std::string elementType{};  // "f32", "i32", "u32", or a struct name for uniforms
  std::string name{};
};

struct OverrideInfo {
  std::string name{};
  uint32_t id = 0;  // the SPIR-V SpecId
  std::string type{};
  std::optional<double> defaultValue{};
};

// An array count that is an override-expression (`var<workgroup> a : array<f32, n * 2u>`), or a
// @workgroup_size argument that is one (or an override without a default): a specialization
// constant whose value pipeline creation computes with evaluateCount(). It is no override: no
// pipeline constant may name it.
struct ComputedCount {
  uint32_t id = 0;     // its SpecId: the largest below 2047 (glslang's limit) no override uses
  std::string text{};  // the WGSL expression, for messages
  // Postfix: "o<id>i" / "o<id>u" an i32 / u32 override's value (by SpecId), "i<v>" / "u<v>" a
  // literal, binary "+ - * / % & | ^ << >>", unary "neg ~" and the conversion "as" (the same
  // bits), each suffixed with its result type: "*u", "negi", "asu".
  std::vector<std::string> program{};
  std::optional<double> defaultValue{};  // with the overrides' defaults, when they all have one
};

struct Reflection {
  std::string entryPoint{};                // the @compute function translated (SPIR-V's "main")
  std::vector<std::string> entryPoints{};  // every @compute function of the module, in source order
  // An override's dimension: its default, or 1 when that is no valid size (below 1, over 1024,
  // 1024, 64); `overrides` holds the default as written, which pipeline creation checks.
  std::array<uint32_t, 3> workgroupSize{1, 1, 1};
  // The override that sets each dimension ("" when fixed); pipeline constants may change it.
  std::array<std::string, 3> workgroupSizeOverrides{};
  std::vector<BindingInfo> bindings{};
  std::vector<OverrideInfo> overrides{};
  uint32_t workgroupStorageBytes = 0;
  std::vector<ComputedCount> computedCounts{};
};

struct Result {
  bool ok() const { return diagnostics.empty(); }
  std::vector<uint32_t> spirv{};
  std::string glsl{};  // the intermediate GLSL handed to glslang (for inspection)
  Reflection reflection{};
  std::vector<Diagnostic> diagnostics{};
};

struct Options {
  bool validate = true;  // run spirv-val on the output
  // The @compute function to translate; the others are left out (each module's SPIR-V has one
  // entry point, "main"). Empty: the first one (Reflection::entryPoints lists them all).
  std::string entryPoint{};
  // The WebGPU device features the module may use: `enable f16;` needs shader-f16 and
  // `enable subgroups;` needs subgroups (else an error at the directive).
  bool shaderF16 = false;
  bool subgroups = false;
};

// Never throws and never aborts on any input: problems come back as diagnostics.
Result translate(std::string_view source, const Options& options = {});

// spirv-val for the Vulkan 1.1 environment, as translate() runs it: true when `spirv` passes;
// otherwise the validator's messages go to `messages` (when given).
bool validateSpirv(const std::vector<uint32_t>& spirv, std::string* messages = nullptr);

// A ComputedCount's value as WGSL evaluates an override-expression at pipeline creation, from
// `overrideValue(id)` (nullopt: an override neither set nor defaulted). `error` says why there
// is none ("'n * 2u': it overflows (...)"): an unset override, division by zero, an overflow, a
// shift of 32 or more, or a value that is not greater than 0 (an array count or a workgroup
// size must be).
struct CountValue {
  std::optional<int64_t> value{};
  std::string error{};
};
CountValue evaluateCount(const ComputedCount& count,
                         const std::function<std::optional<double>(uint32_t)>& overrideValue);

// "error: 3:7: ..." lines joined by newlines.
std::string formatDiagnostics(const std::vector<Diagnostic>& diagnostics);

}  // namespace wgsl
