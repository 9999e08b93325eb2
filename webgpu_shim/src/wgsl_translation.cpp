#include "wgsl_translation.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <optional>

namespace wgpu::detail {

namespace {

std::atomic<uint64_t> translations{0};

// Bump when the entry layout changes: old entries stop matching.
constexpr std::string_view kEntryMagic = "webgpu-shim-spirv-v5\n";
// Which translator made an entry: a digest of wgsl_subset's sources and the glslang and
// SPIRV-Tools versions (webgpu_shim/CMakeLists.txt). An entry from another translator is a miss.
#ifndef WGPU_WGSL_TRANSLATOR_ID
#define WGPU_WGSL_TRANSLATOR_ID "unknown"
#endif
constexpr std::string_view kTranslatorId = WGPU_WGSL_TRANSLATOR_ID;

uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The WGSL's hash names its entry; the entry holds the full text, so a collision is a miss.
std::string EntryKey(std::string_view wgsl) {
  char name[40];
  std::snprintf(name, sizeof name, "wgsl-spirv-%016llx",
                static_cast<unsigned long long>(Fnv1a(wgsl)));
  return name;
}

void AppendU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
void AppendField(std::string& out, std::string_view text) {
  AppendU64(out, text.size());
  out += text;
}

// An entry: the magic, a checksum (u64) of everything after the translator's id, the id, the
// WGSL (compared in full), the entry point translated and the module's entry points, the
// translator's workgroup storage count, the overrides (SpecId, name, whether it has a default,
// the default's bits as a double), the computed counts (SpecId, text, the program's token
// count and tokens, whether it has a default, the default's bits), then the SPIR-V words;
// each string prefixed with its u64 length.
std::string EncodeEntry(std::string_view wgsl, const WgslTranslation& t) {
  std::string body;
  AppendField(body, wgsl);
  AppendField(body, t.entryPoint);
  AppendU64(body, t.entryPoints.size());
  for (const std::string& e : t.entryPoints) AppendField(body, e);
  AppendU64(body, t.workgroupStorageBytes);
  AppendU64(body, t.overrides.size());
  for (const WgslOverride& o : t.overrides) {
    AppendU64(body, o.id);
    AppendField(body, o.name);
    AppendU64(body, o.hasDefault ? 1 : 0);
    uint64_t bits = 0;
    std::memcpy(&bits, &o.defaultValue, 8);
    AppendU64(body, bits);
  }
  AppendU64(body, t.computedCounts.size());
  for (const wgsl::ComputedCount& c : t.computedCounts) {
    AppendU64(body, c.id);
    AppendField(body, c.text);
    AppendU64(body, c.program.size());
    for (const std::string& token : c.program) AppendField(body, token);
    const double d = c.defaultValue.value_or(0);
    uint64_t bits = 0;
    std::memcpy(&bits, &d, 8);
    AppendU64(body, c.defaultValue ? 1 : 0);
    AppendU64(body, bits);
  }
  body.append(reinterpret_cast<const char*>(t.spirv.data()), t.spirv.size() * 4);
  std::string out(kEntryMagic);
  AppendU64(out, Fnv1a(body));
  AppendField(out, kTranslatorId);
  return out + body;
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  std::optional<uint64_t> U64() {
    if (bytes_.size() - at_ < 8) return std::nullopt;
    uint64_t v = 0;
    std::memcpy(&v, bytes_.data() + at_, 8);
    at_ += 8;
    return v;
  }
  std::optional<std::string_view> Field() {
    const auto size = U64();
    if (!size || bytes_.size() - at_ < *size) return std::nullopt;
    const std::string_view out = bytes_.substr(at_, *size);
    at_ += *size;
    return out;
  }
  std::string_view Rest() const { return bytes_.substr(at_); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

// The translation an entry holds, if it is whole and was made from `wgsl` by this translator.
std::optional<WgslTranslation> DecodeEntry(std::string_view bytes, std::string_view wgsl) {
  if (bytes.substr(0, kEntryMagic.size()) != kEntryMagic) return std::nullopt;
  Reader r(bytes.substr(kEntryMagic.size()));
  const auto checksum = r.U64();
  const auto translator = r.Field();
  if (!checksum || !translator || *translator != kTranslatorId) return std::nullopt;
  if (Fnv1a(r.Rest()) != *checksum) return std::nullopt;
  const auto source = r.Field();
  if (!source || *source != wgsl) return std::nullopt;
  WgslTranslation t;
  const auto entry = r.Field();
  const auto entries = r.U64();
  if (!entry || !entries) return std::nullopt;
  t.entryPoint = std::string(*entry);
  for (uint64_t i = 0; i < *entries; ++i) {
    const auto e = r.Field();
    if (!e) return std::nullopt;
    t.entryPoints.emplace_back(*e);
  }
  const auto workgroupBytes = r.U64();
  const auto overrides = r.U64();
  if (!workgroupBytes || !overrides) return std::nullopt;
  t.workgroupStorageBytes = *workgroupBytes;
  for (uint64_t i = 0; i < *overrides; ++i) {
    const auto id = r.U64();
    const auto name = r.Field();
    const auto hasDefault = r.U64();
    const auto defaultBits = r.U64();
    if (!id || !name || !hasDefault || !defaultBits) return std::nullopt;
    double defaultValue = 0;
    std::memcpy(&defaultValue, &*defaultBits, 8);
    t.overrides.push_back(
        {static_cast<uint32_t>(*id), std::string(*name), *hasDefault != 0, defaultValue});
  }
  const auto counts = r.U64();
  if (!counts) return std::nullopt;
  for (uint64_t i = 0; i < *counts; ++i) {
    wgsl::ComputedCount c;
    const auto id = r.U64();
    const auto text = r.Field();
    const auto tokens = r.U64();
    if (!id || !text || !tokens) return std::nullopt;
    c.id = static_cast<uint32_t>(*id);
    c.text = std::string(*text);
    for (uint64_t k = 0; k < *tokens; ++k) {
      const auto token = r.Field();
      if (!token) return std::nullopt;
      c.program.emplace_back(*token);
    }
    const auto hasDefault = r.U64();
    const auto bits = r.U64();
    if (!hasDefault || !bits) return std::nullopt;
    if (*hasDefault) {
      double d = 0;
      std::memcpy(&d, &*bits, 8);
      c.defaultValue = d;
    }
    t.computedCounts.push_back(std::move(c));
  }
  const std::string_view code = r.Rest();
  if (code.empty() || code.size() % 4 != 0) return std::nullopt;
  t.spirv.resize(code.size() / 4);
  std::memcpy(t.spirv.data(), code.data(), code.size());
  if (t.spirv[0] != 0x07230203u) return std::nullopt;  // the SPIR-V magic
  return t;
}

}  // namespace

WgslTranslation TranslateWgsl(std::string_view wgsl, const std::string& entryPoint,
                              const FeatureSet& features, const BlobCache& cache) {
  // What an entry is made from: the WGSL, which entry point (a module's other entry points are
  // other entries) and the device features the translator allowed (none: no line, so entries
  // made before features existed still match).
  std::string source = entryPoint.empty() ? std::string(wgsl) : "// entry point " + entryPoint + "\n" + std::string(wgsl);
  if (features.shaderF16 || features.subgroups)
    source = std::string("// features") + (features.shaderF16 ? " shader-f16" : "") +
             (features.subgroups ? " subgroups" : "") + "\n" + source;
  const std::string key = cache.CanLoad() || cache.CanStore() ? cache.Key(EntryKey(source)) : "";
  if (cache.CanLoad()) {
    // spirv-val on what the cache returns too: whatever the hooks hand back never reaches the
    // driver unvalidated.
    if (const auto bytes = cache.Load(key)) {
      if (auto hit = DecodeEntry(*bytes, source); hit && wgsl::validateSpirv(hit->spirv))
        return std::move(*hit);
    }
  }
  ++translations;
  wgsl::Options options;
  options.entryPoint = entryPoint;
  options.shaderF16 = features.shaderF16;
  options.subgroups = features.subgroups;
  wgsl::Result r = wgsl::translate(wgsl, options);  // runs spirv-val on its output
  WgslTranslation t;
  if (!r.ok()) {
    t.diagnostics = std::move(r.diagnostics);
    return t;
  }
  t.spirv = std::move(r.spirv);
  t.workgroupStorageBytes = r.reflection.workgroupStorageBytes;
  t.entryPoint = r.reflection.entryPoint;
  t.entryPoints = r.reflection.entryPoints;
  t.computedCounts = r.reflection.computedCounts;
  for (const auto& o : r.reflection.overrides)
    t.overrides.push_back({o.id, o.name, o.defaultValue.has_value(), o.defaultValue.value_or(0)});
  if (cache.CanStore()) cache.Store(key, EncodeEntry(source, t));
  return t;
}

}  // namespace wgpu::detail

uint64_t wgpu::GetWgslTranslationCountForTesting() { return wgpu::detail::translations.load(); }
