#include "layout.h"

#include <algorithm>
#include <cstdint>

namespace wgsl::detail {
namespace {
using K = Type::K;
using Layouts = std::map<std::string, ir::StructLayout>;

uint32_t roundUp(uint32_t a, uint32_t v) {
  return (v + a - 1) / a * a;
}
}  // namespace

uint32_t alignOf(const Type& t, const Layouts& layouts) {
  switch (t.k) {
    case K::Vec:  // vec2: twice the scalar; vec3 and vec4: four times
      return (t.n == 2 ? 2 : 4) * alignOf(*t.elem, layouts);
    case K::F16:
      return 2;
    case K::Mat:
    case K::Array:
      return alignOf(*t.elem, layouts);
    case K::Struct:
      return layouts.at(t.name).align;
    default:
      return 4;
  }
}

uint32_t strideOf(const Type& array, const Layouts& layouts) {
  return roundUp(alignOf(*array.elem, layouts), sizeOf(*array.elem, layouts));
}

uint32_t sizeOf(const Type& t, const Layouts& layouts) {
  switch (t.k) {
    case K::Vec:
      return static_cast<uint32_t>(t.n) * sizeOf(*t.elem, layouts);
    case K::F16:
      return 2;
    case K::Mat:
      return static_cast<uint32_t>(t.n) *
             roundUp(alignOf(*t.elem, layouts), sizeOf(*t.elem, layouts));
    case K::Array: {  // saturated: the resolver bounds structs to 1 MiB
      const uint64_t size = uint64_t{strideOf(t, layouts)} * static_cast<uint64_t>(t.n ? t.n : 1);
      return static_cast<uint32_t>(std::min<uint64_t>(size, UINT32_MAX));
    }
    case K::Struct:
      return layouts.at(t.name).size;
    default:
      return 4;
  }
}

GlslStruct glslStruct(const std::string& name,
                      const std::map<std::string, ir::StructMembers>& structs,
                      const Layouts& layouts) {
  const ir::StructMembers& members = structs.at(name);
  const ir::StructLayout& layout = layouts.at(name);
  GlslStruct out;
  uint32_t end = 0;
  // Fills [end, to) with members no more aligned than the WGSL struct: std430 puts each where
  // `end` is, as `end` is a multiple of its alignment.
  const auto pad = [&](uint32_t to) {
    while (end < to) {
      if (layout.align >= 16 && end % 16 == 0 && to - end >= 16) {
        const uint32_t n = (to - end) / 16;
        out.slots.push_back({-1, "uvec4", n > 1 ? n : 0});
        end += n * 16;
        out.align = std::max(out.align, 16u);
      } else if (layout.align >= 8 && end % 8 == 0 && to - end >= 8) {
        out.slots.push_back({-1, "uvec2", 0});
        end += 8;
        out.align = std::max(out.align, 8u);
      } else if (end % 4 != 0 || to - end < 4) {  // only next to f16 members
        out.slots.push_back({-1, "float16_t", 0});
        end += 2;
      } else {
        out.slots.push_back({-1, "uint", 0});
        end += 4;
      }
    }
  };
  for (size_t i = 0; i < members.size(); ++i) {
    const Type& t = members[i].second;
    const uint32_t a = glslAlignOf(t, structs, layouts);  // where std430 would put it
    if ((end + a - 1) / a * a != layout.offsets[i]) pad(layout.offsets[i]);
    out.slots.push_back({static_cast<int>(i), {}, 0});
    out.align = std::max(out.align, a);
    end = layout.offsets[i] + sizeOf(t, layouts);
  }
  const bool runtimeSized =
      !members.empty() && members.back().second.k == K::Array && members.back().second.n == 0;
  if (!runtimeSized && roundUp(out.align, end) != layout.size) pad(layout.size);
  return out;
}

uint32_t glslAlignOf(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                     const Layouts& layouts) {
  if (t.k == K::Array) return glslAlignOf(*t.elem, structs, layouts);
  if (t.k == K::Struct) {  // computed once per struct where it is declared: no recursion
    const uint32_t known = layouts.at(t.name).glslAlign;
    return known ? known : glslStruct(t.name, structs, layouts).align;
  }
  return alignOf(t, layouts);
}

bool holdsSplitMatrix(const Type& t, const std::map<std::string, ir::StructMembers>& structs) {
  if (t.k == K::Mat) return t.rows() == 2 || t.elem->elem->k == K::F16;
  if (t.k == K::Array) return holdsSplitMatrix(*t.elem, structs);
  if (t.k != K::Struct) return false;
  for (const auto& [mn, mt] : structs.at(t.name)) {
    if (holdsSplitMatrix(mt, structs)) return true;
  }
  return false;
}

bool glslHasPadding(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                    const Layouts& layouts) {
  if (t.k == K::Array) return glslHasPadding(*t.elem, structs, layouts);
  if (t.k != K::Struct) return false;
  for (const GlslSlot& s : glslStruct(t.name, structs, layouts).slots) {
    if (s.member < 0) return true;
  }
  for (const auto& [mn, mt] : structs.at(t.name)) {
    if (glslHasPadding(mt, structs, layouts)) return true;
  }
  return false;
}

std::string glslMemberDecls(const std::string& name,
                            const std::map<std::string, ir::StructMembers>& structs,
                            const Layouts& layouts, const std::string& indent,
                            const std::string& sep) {
  const ir::StructMembers& members = structs.at(name);
  std::string out;
  int pad = 0;
  for (const GlslSlot& s : glslStruct(name, structs, layouts).slots) {
    if (s.member < 0) {
      out += indent + s.padding + " tg_pad_" + std::to_string(pad++) +
             (s.count ? "[" + std::to_string(s.count) + "]" : "") + ";" + sep;
      continue;
    }
    const auto& [mn, mt] = members[static_cast<size_t>(s.member)];
    std::string dims;  // array<array<u32, 5>, 7> is `uint m[7][5]`: Type::glsl() spells `uint`
    for (const Type* a = &mt; a->k == K::Array; a = a->elem.get())
      dims += "[" + (a->n ? std::to_string(a->n) : std::string()) + "]";
    out += indent + mt.glsl() + " " + glslName(mn) + dims + ";" + sep;
  }
  return out;
}

std::string glslStructValue(const std::string& name, const std::vector<std::string>& values,
                            const std::map<std::string, ir::StructMembers>& structs,
                            const Layouts& layouts) {
  std::string code = glslName(name) + "(";
  bool first = true;
  for (const GlslSlot& s : glslStruct(name, structs, layouts).slots) {
    code += first ? "" : ", ";
    first = false;
    if (s.member >= 0) {
      code += values[static_cast<size_t>(s.member)];
      continue;
    }
    const std::string zero = s.padding == "uint" ? "0u" : s.padding + "(0u)";
    if (!s.count) {
      code += zero;
      continue;
    }
    code += s.padding + "[" + std::to_string(s.count) + "](";
    for (uint32_t i = 0; i < s.count; ++i) code += (i ? ", " : "") + zero;
    code += ")";
  }
  return code + ")";
}

std::string std140Mismatch(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                           const Layouts& layouts) {
  // A matCx2<f32> and every f16 matrix are decomposed into their columns (glsl_std140.h);
  // arrays of them are checked below.
  if (t.k == K::Array) {
    const uint32_t stride = strideOf(t, layouts);
    if (stride % 16 != 0)
      return t.wgsl() + " (element stride " + std::to_string(stride) +
             " bytes; std140 rounds it up to a multiple of 16)";
    return std140Mismatch(*t.elem, structs, layouts);
  }
  if (t.k != K::Struct) return "";
  const ir::StructMembers& members = structs.at(t.name);
  const ir::StructLayout& layout = layouts.at(t.name);
  for (size_t i = 0; i < members.size(); ++i) {
    const Type& mt = members[i].second;
    if (std::string m = std140Mismatch(mt, structs, layouts); !m.empty()) return m;
    const std::string where = "member '" + members[i].first + "' of '" + t.name + "'";
    if ((mt.k == K::Struct || mt.k == K::Array) && layout.offsets[i] % 16 != 0)
      return where + " (offset " + std::to_string(layout.offsets[i]) +
             "; std140 aligns structs and arrays to 16 bytes)";
    if (i > 0 && members[i - 1].second.k == K::Struct && layout.offsets[i] % 16 != 0)
      return where + " (offset " + std::to_string(layout.offsets[i]) +
             " after a struct; std140 rounds a struct's size up to 16 bytes)";
  }
  return "";
}

}  // namespace wgsl::detail
