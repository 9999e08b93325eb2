#include "glsl_std140.h"

#include "layout.h"

namespace wgsl::detail {
namespace {
using K = Type::K;

// A matrix whose columns std140 would put 16 bytes apart where WGSL packs them: matCx2<f32>
// (8 apart) and matCxR<f16> (4 apart for R = 2, 8 for 3 and 4).
bool isSplit(const Type& t) {
  return t.k == K::Mat && (t.rows() == 2 || t.elem->elem->k == K::F16);
}

std::string dims(const Type& t) {
  if (t.k != K::Array) return "";
  return "[" + std::to_string(t.n) + "]" + dims(*t.elem);
}

const Type& innermost(const Type& t) {
  return t.k == K::Array ? innermost(*t.elem) : t;
}
}  // namespace

bool Std140::holdsSplitMatrix(const Type& t) const {
  return wgsl::detail::holdsSplitMatrix(t, m_.structs);
}

std::string Std140::takeDeclarations() {
  std::string out;
  std::swap(out, decls_);
  return out;
}

std::string Std140::mirrorType(const Type& t) {
  const Type& e = innermost(t);
  if (isSplit(e)) {
    const bool f16 = e.elem->elem->k == K::F16;
    const std::string name =
        "tgs_mat" + std::to_string(e.n) + "x" + std::to_string(e.rows()) + (f16 ? "h" : "");
    if (declared_.insert(name).second) {
      std::string d = "struct " + name + " {";
      for (int i = 0; i < e.n; ++i) d += " " + e.elem->glsl() + " c" + std::to_string(i) + ";";
      decls_ += d + " };\n";
    }
    return name;
  }
  if (e.k != K::Struct || !holdsSplitMatrix(e)) return e.glsl();
  const std::string name = "tgs_" + glslName(e.name);
  if (declared_.contains(name)) return name;
  declared_.insert(name);
  const std::string members = memberDecls(e.name, "  ", "\n");  // declares what they use first
  decls_ += "struct " + name + " {\n" + members + "};\n";
  // Its conversion to the WGSL struct, member by member.
  std::vector<std::string> values;
  for (const auto& [mn, mt] : m_.structs.at(e.name))
    values.push_back(value(member("v", glslName(mn), mt), mt));
  decls_ += glslName(e.name) + " tgs_conv_" + glslName(e.name) + "(" + name + " v) { return " +
            glslStructValue(e.name, values, m_.structs, m_.layouts) + "; }\n";
  return name;
}

std::string Std140::memberDecl(const std::string& glslMember, const Type& t,
                               const std::string& indent, const std::string& sep) {
  if (isSplit(t)) {  // its columns, as far apart as in WGSL
    std::string out;
    for (int i = 0; i < t.n; ++i)
      out += indent + t.elem->glsl() + " tgc" + std::to_string(i) + "_" + glslMember + ";" + sep;
    // A vec3<f16> column is 6 bytes; WGSL's matrix ends at the next 8 (a following f16 too).
    if (t.rows() == 3) out += indent + "float16_t tgcp_" + glslMember + ";" + sep;
    return out;
  }
  return indent + mirrorType(t) + " " + glslMember + dims(t) + ";" + sep;
}

// The mirror struct's members: the WGSL struct's slots (layout.h), padding included.
std::string Std140::memberDecls(const std::string& structName, const std::string& indent,
                                const std::string& sep) {
  const ir::StructMembers& members = m_.structs.at(structName);
  std::string out;
  int pad = 0;
  for (const GlslSlot& s : glslStruct(structName, m_.structs, m_.layouts).slots) {
    if (s.member < 0) {
      out += indent + s.padding + " tg_pad_" + std::to_string(pad++) +
             (s.count ? "[" + std::to_string(s.count) + "]" : "") + ";" + sep;
      continue;
    }
    const auto& [mn, mt] = members[static_cast<size_t>(s.member)];
    out += memberDecl(glslName(mn), mt, indent, sep);
  }
  return out;
}

std::string Std140::blockMembers(const std::string& glslName, const Type& t) {
  if (t.k == K::Struct) return memberDecls(t.name, "", " ");
  return memberDecl(glslName, t, "", " ");
}

Std140::Rep Std140::member(const std::string& base, const std::string& glslMember,
                           const Type& t) const {
  if (isSplit(t)) return {Rep::Kind::Split, {}, base + ".", glslMember};
  const std::string code = base + "." + glslMember;
  return {holdsSplitMatrix(t) ? Rep::Kind::Mirror : Rep::Kind::Plain, code, {}, {}};
}

Std140::Rep Std140::element(const std::string& code, const Type& elem) const {
  return {holdsSplitMatrix(elem) ? Rep::Kind::Mirror : Rep::Kind::Plain, code, {}, {}};
}

std::string Std140::value(const Rep& r, const Type& t) {
  switch (r.kind) {
    case Rep::Kind::Plain:
      return r.code;
    case Rep::Kind::Split: {
      std::string code = t.glsl() + "(";
      for (int i = 0; i < t.n; ++i)
        code += (i ? ", " : "") + r.prefix + "tgc" + std::to_string(i) + "_" + r.member;
      return code + ")";
    }
    case Rep::Kind::Block: {  // the block instance: its members, one by one
      std::vector<std::string> values;
      for (const auto& [mn, mt] : m_.structs.at(t.name))
        values.push_back(value(member(r.code, glslName(mn), mt), mt));
      return glslStructValue(t.name, values, m_.structs, m_.layouts);
    }
    case Rep::Kind::Mirror:
      break;
  }
  if (isSplit(t)) {
    std::string code = t.glsl() + "(";
    for (int i = 0; i < t.n; ++i) code += (i ? ", " : "") + r.code + ".c" + std::to_string(i);
    return code + ")";
  }
  if (t.k == K::Struct) {
    mirrorType(t);
    return "tgs_conv_" + glslName(t.name) + "(" + r.code + ")";
  }
  return arrayHelper(t) + "(" + r.code + ")";
}

// `T[N] tgs_conv_aK(M v[N])`: an array converted element by element.
std::string Std140::arrayHelper(const Type& t) {
  if (auto it = arrayHelpers_.find(t.wgsl()); it != arrayHelpers_.end()) return it->second;
  const std::string mirror = mirrorType(t);
  const std::string elemValue = value(element("v[i]", *t.elem), *t.elem);  // helpers it needs first
  const std::string name = "tgs_conv_a" + std::to_string(arrayHelpers_.size());
  arrayHelpers_[t.wgsl()] = name;
  decls_ += innermost(t).glsl() + dims(t) + " " + name + "(" + mirror + " v" + dims(t) + ") { " +
            innermost(t).glsl() + " r" + dims(t) + "; for (int i = 0; i < " + std::to_string(t.n) +
            "; ++i) r[i] = " + elemValue + "; return r; }\n";
  return name;
}

}  // namespace wgsl::detail
