#include "glsl_writer.h"
#include "glsl_writer_class.h"
#include "subgroups.h"

#include "glsl_prelude.h"
#include "layout.h"

namespace wgsl::detail {

std::string GlslWriter::run() {
  for (const ir::Declaration& d : m_.order) {
    switch (d.kind) {
      case ir::Declaration::Kind::Struct:
        declareStruct(d.structName);
        break;
      case ir::Declaration::Kind::Global:
        declareGlobal(*d.global);
        break;
      case ir::Declaration::Kind::Function:  // the other entry points are left out
        // Functions taking workgroup, storage or uniform pointers are written per call.
        if ((d.function == m_.entry || !d.function->entryPoint) && !specialised(*d.function))
          body_ += function(*d.function, glslName(d.function->name));
        break;
    }
  }
  decls_ += std140_.takeDeclarations();  // conversions the code calls (glsl_std140.h)
  return "#version 450\n" + extensions() + header_ +
         usedPrelude(decls_ + body_ + specialisations_, m_.f16) + decls_ + body_ + specialisations_;
}

std::string GlslWriter::name(const ir::Variable* v) const {
  if (auto it = locals_.find(v); it != locals_.end()) return it->second;
  // WGSL lets a value share a struct's name; GLSL's `w_S w_S` is a syntax error.
  if (m_.structs.contains(v->name)) return glslName(v->name) + "_v";
  return glslName(v->name);
}

std::string GlslWriter::extensions() const {
  std::string out;
  if (m_.f16)
    out +=
        "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
        "#extension GL_EXT_shader_16bit_storage : require\n";
  if (m_.subgroups) {
    for (const char* e :
         {"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "quad"})
      out += std::string("#extension GL_KHR_shader_subgroup_") + e + " : require\n";
    if (m_.f16) out += "#extension GL_EXT_shader_subgroup_extended_types_float16 : require\n";
  }
  return out;
}

void GlslWriter::declareStruct(const std::string& structName) {
  const ir::StructMembers& members = m_.structs.at(structName);
  const Type& last = members.empty() ? Type{} : members.back().second;
  if (last.k == K::Array && last.n == 0) return;  // only ever a storage block's members
  decls_ += "struct " + glslName(structName) + " {\n" +
            glslMemberDecls(structName, m_.structs, m_.layouts, "  ", "\n") + "};\n";
}

void GlslWriter::declareGlobal(const ir::Variable& v) {
  const Type& t = v.type;
  const std::string n = name(&v);
  if (v.kind == ir::Variable::Kind::Const) return;  // each use spells its value
  if (v.kind == ir::Variable::Kind::Override) {
    // An array count without a default: 1 (GLSL arrays are never empty; a pipeline must set it).
    const std::string value = v.init         ? expr(v.init)
                              : v.arrayCount ? (t.k == K::U32 ? "1u" : "1")
                                             : zeroOf(t);
    decls_ += "layout(constant_id = " + std::to_string(v.overrideId) + ") const " + t.glsl() + " " +
              n + " = " + value + ";\n";
    return;
  }
  if (v.space == "storage" || v.space == "uniform") return declareResource(v);
  if (v.space == "workgroup") {
    decls_ += "shared " + t.glsl() + " " + n + dims(t) + ";\n";
    zeroAtEntry_.push_back({n, t, true});
    return;
  }
  // private
  std::string init;
  if (v.init)
    init = " = " + expr(v.init);
  else if (t.k != K::Array && t.k != K::Struct)
    init = " = " + zeroOf(t);
  decls_ += t.glsl() + " " + n + dims(t) + init + ";\n";
  if (!v.init && (t.k == K::Array || t.k == K::Struct)) zeroAtEntry_.push_back({n, t, false});
}

void GlslWriter::declareResource(const ir::Variable& v) {
  const bool storage = v.space == "storage";
  const std::string g = std::to_string(v.group), b = std::to_string(v.binding);
  const std::string block = "tg_block_" + g + "_" + b;
  const std::string layout = "layout(" + std::string(storage ? "std430" : "std140") +
                             ", set = " + g + ", binding = " + b + ") ";
  const std::string qual =
      storage ? std::string(v.readOnly ? "readonly buffer " : "buffer ") : "uniform ";
  const Type& t = v.type;
  if (!storage && std140_.holdsSplitMatrix(t)) {  // decomposed (glsl_std140.h)
    const std::string members = std140_.blockMembers(name(&v), t);
    decls_ += std140_.takeDeclarations() + layout + qual + block + " { " + members + "}" +
              (t.k == K::Struct ? " " + name(&v) : std::string()) + ";\n";
    return;
  }
  if (t.k == K::Array) {
    decls_ += layout + qual + block + " { " + t.glsl() + " " + name(&v) + dims(t) + "; };\n";
  } else if (t.k == K::Struct) {
    const std::string members = glslMemberDecls(t.name, m_.structs, m_.layouts, "", " ");
    decls_ += layout + qual + block + " { " + members + "} " + name(&v) + ";\n";
    bufferBlocks_[name(&v)] = &v;
  } else {
    decls_ += layout + qual + block + " { " + t.glsl() + " " + name(&v) + "; };\n";
  }
}

std::string GlslWriter::zeroFill(const std::string& target, const Type& t,
                                 const std::string& indent) const {
  if (t.k == K::Array) {
    const std::string i = "tg_z" + std::to_string(indent.size());  // unique per nesting level
    return indent + "for (int " + i + " = 0; " + i + " < " + std::to_string(t.n) + "; ++" + i +
           ") {\n" + zeroFill(target + "[" + i + "]", *t.elem, indent + "  ") + indent + "}\n";
  }
  if (t.k == K::Struct) {
    std::string out;
    for (const auto& [mn, mt] : m_.structs.at(t.name))
      out += zeroFill(target + "." + glslName(mn), mt, indent);
    return out;
  }
  return indent + target + " = " + zeroOf(t.k == K::Atomic ? *t.elem : t) + ";\n";
}

std::string GlslWriter::copyMembers(const std::string& target, const std::string& source,
                                    const Type& t, const std::string& indent) const {
  if (t.k == K::Struct) {
    std::string out;
    for (const auto& [mn, mt] : m_.structs.at(t.name)) {
      const std::string m = "." + glslName(mn);
      out += glslHasPadding(mt, m_.structs, m_.layouts)
                 ? copyMembers(target + m, source + m, mt, indent)
                 : indent + target + m + " = " + source + m + ";\n";
    }
    return out;
  }
  const std::string i = "tg_c" + std::to_string(indent.size());  // unique per nesting level
  return indent + "for (int " + i + " = 0; " + i + " < " + std::to_string(t.n) + "; ++" + i +
         ") {\n" +
         copyMembers(target + "[" + i + "]", source + "[" + i + "]", *t.elem, indent + "  ") +
         indent + "}\n";
}

std::string GlslWriter::zeroInitPrologue() const {
  std::string out, shared;
  for (const auto& z : zeroAtEntry_) {
    if (!z.workgroup) {
      out += zeroFill(z.name, z.type, "  ");
    } else if (z.type.k == K::Array) {
      const std::string length = z.type.overrideSized() ? "uint(" + glslName(z.type.name) + ")"
                                                        : std::to_string(z.type.n) + "u";
      shared += "  for (uint tg_w = gl_LocalInvocationIndex; tg_w < " + length +
                "; tg_w += gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z) {\n" +
                zeroFill(z.name + "[tg_w]", *z.type.elem, "    ") + "  }\n";
    } else {
      shared +=
          "  if (gl_LocalInvocationIndex == 0u) {\n" + zeroFill(z.name, z.type, "    ") + "  }\n";
    }
  }
  if (!shared.empty()) out += shared + "  barrier();\n";
  return out;
}

bool GlslWriter::bound(const ir::Variable* p) {
  return p->type.k == K::Ptr && p->type.name != "function" && p->type.name != "private";
}

bool GlslWriter::specialised(const ir::Function& f) {
  for (const ir::Variable* p : f.params) {
    if (bound(p)) return true;
  }
  return false;
}

std::string GlslWriter::call(const ir::Expr& e) {
  const ir::Function& f = *e.function;
  std::string key, args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const std::string a = expr(e.args[i]);
    if (bound(f.params[i]))
      key += a + "\n";
    else
      args += (args.empty() ? "" : ", ") + a;
  }
  if (!specialised(f)) return glslName(f.name) + "(" + args + ")";
  auto [it, added] = specialisationNames_.try_emplace(&f, std::map<std::string, std::string>{})
                         .first->second.try_emplace(key, "");
  if (added) {
    it->second = glslName(f.name) + "_s" + std::to_string(++counter_);
    std::map<const ir::Variable*, std::string> binding;
    size_t start = 0;
    for (const ir::Variable* p : f.params) {
      if (!bound(p)) continue;
      const size_t end = key.find('\n', start);
      binding[p] = key.substr(start, end - start);
      start = end + 1;
    }
    // Written apart from the caller: its own loop state and parameters.
    std::swap(binding_, binding);
    auto loops = std::move(loops_);
    auto flags = std::move(breakFlags_);
    auto contFlags = std::move(contFlags_);
    loops_.clear(), breakFlags_.clear(), contFlags_.clear();
    const std::string code = function(f, it->second);
    loops_ = std::move(loops), breakFlags_ = std::move(flags), contFlags_ = std::move(contFlags);
    std::swap(binding_, binding);
    decls_ += code.substr(0, code.find(" {\n")) + ";\n";
    specialisations_ += code;
  }
  return it->second + "(" + args + ")";
}

std::string GlslWriter::function(const ir::Function& f, const std::string& glslFunctionName) {
  std::string sig, prologue;
  if (f.entryPoint) {
    std::string overrideIds;  // local_size_{x,y,z}_id for dimensions an override sets
    for (size_t i = 0; i < 3; ++i) {
      if (const ir::Variable* o = f.workgroupSizeOverrides[i])
        overrideIds +=
            std::string(", local_size_") + "xyz"[i] + "_id = " + std::to_string(o->overrideId);
    }
    header_ += "layout(local_size_x = " + std::to_string(f.workgroupSize[0]) +
               ", local_size_y = " + std::to_string(f.workgroupSize[1]) +
               ", local_size_z = " + std::to_string(f.workgroupSize[2]) + overrideIds + ") in;\n";
    for (const ir::Variable* p : f.params) {
      std::vector<std::string> values;  // a struct of builtins: its members'
      if (p->type.k == K::Struct) {
        for (const std::string& b : m_.memberBuiltins.at(p->type.name))
          values.push_back(invocationBuiltin(b));
      }
      const std::string value = p->type.k == K::Struct
                                    ? glslStructValue(p->type.name, values, m_.structs, m_.layouts)
                                    : invocationBuiltin(p->builtin);
      prologue += "  " + p->type.glsl() + " " + name(p) + " = " + value + ";\n";
    }
    prologue += zeroInitPrologue();
    sig = "void main()";
  } else {
    std::string params;
    for (const ir::Variable* p : f.params) {
      if (bound(p)) continue;
      // Function and private pointers: copy-in/copy-out, which WGSL's aliasing rules make
      // equivalent to passing by reference.
      const Type& t = p->type.k == K::Ptr ? *p->type.elem : p->type;
      params += (params.empty() ? "" : ", ") + std::string(p->type.k == K::Ptr ? "inout " : "") +
                t.glsl() + " " + name(p) + dims(t);
    }
    sig = f.returnType.glsl() + dims(f.returnType) + " " + glslFunctionName + "(" + params + ")";
  }
  std::string body = prologue;
  for (const ir::Stmt* s : f.body) body += stmt(*s, 1);
  return sig + " {\n" + body + "}\n";
}

std::string writeGlsl(const ir::Module& module) {
  return GlslWriter(module).run();
}

}  // namespace wgsl::detail
