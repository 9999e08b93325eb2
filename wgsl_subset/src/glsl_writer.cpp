#include "glsl_writer.h"
#include "subgroups.h"

#include <map>
#include <optional>
#include <set>

#include "glsl_prelude.h"
#include "glsl_std140.h"
#include "index_bounds.h"
#include "layout.h"

namespace wgsl::detail {
namespace {

using K = Type::K;
using EK = ir::Expr::Kind;
using SK = ir::Stmt::Kind;

class GlslWriter {
 public:
  explicit GlslWriter(const ir::Module& m) : m_(m), bounds_(m) {}

  std::string run() {
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
           usedPrelude(decls_ + body_ + specialisations_, m_.f16) + decls_ + body_ +
           specialisations_;
  }

 private:
  std::string name(const ir::Variable* v) const {
    if (auto it = locals_.find(v); it != locals_.end()) return it->second;
    // WGSL lets a value share a struct's name; GLSL's `w_S w_S` is a syntax error.
    if (m_.structs.contains(v->name)) return glslName(v->name) + "_v";
    return glslName(v->name);
  }

  // GLSL extensions for what the module enables: f16 values, arithmetic and buffer storage;
  // the subgroup operations (glslang adds a SPIR-V capability only where one is used).
  std::string extensions() const {
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

  // ---- declarations ----
  void declareStruct(const std::string& structName) {
    const ir::StructMembers& members = m_.structs.at(structName);
    const Type& last = members.empty() ? Type{} : members.back().second;
    if (last.k == K::Array && last.n == 0) return;  // only ever a storage block's members
    decls_ += "struct " + glslName(structName) + " {\n" +
              glslMemberDecls(structName, m_.structs, m_.layouts, "  ", "\n") + "};\n";
  }

  void declareGlobal(const ir::Variable& v) {
    const Type& t = v.type;
    const std::string n = name(&v);
    if (v.kind == ir::Variable::Kind::Const) return;  // each use spells its value
    if (v.kind == ir::Variable::Kind::Override) {
      // An array count without a default: 1 (GLSL arrays are never empty; a pipeline must set it).
      const std::string value = v.init         ? expr(v.init)
                                : v.arrayCount ? (t.k == K::U32 ? "1u" : "1")
                                               : zeroOf(t);
      decls_ += "layout(constant_id = " + std::to_string(v.overrideId) + ") const " + t.glsl() +
                " " + n + " = " + value + ";\n";
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

  void declareResource(const ir::Variable& v) {
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

  // Statements that give `target` (of type `t`) WGSL's zero value, which WGSL promises for every
  // variable without an initializer; GLSL leaves arrays, structs and `shared` memory undefined.
  std::string zeroFill(const std::string& target, const Type& t, const std::string& indent) const {
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

  // `target = source;` without writing the padding members of the structs in `t`.
  std::string copyMembers(const std::string& target, const std::string& source, const Type& t,
                          const std::string& indent) const {
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

  // The entry point's first statements: private arrays and structs zeroed per invocation, then
  // workgroup memory zeroed by the workgroup's invocations together (an array's elements are
  // shared out by local index, anything else is written by invocation 0) and a barrier, as Tint
  // and Dawn do when the driver does not zero it.
  std::string zeroInitPrologue() const {
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

  // A pointer parameter GLSL cannot pass: it names workgroup, storage or uniform memory, so the
  // function is written once per memory its callers pass (binding_), each its own GLSL function.
  static bool bound(const ir::Variable* p) {
    return p->type.k == K::Ptr && p->type.name != "function" && p->type.name != "private";
  }
  static bool specialised(const ir::Function& f) {
    for (const ir::Variable* p : f.params) {
      if (bound(p)) return true;
    }
    return false;
  }

  // A call; a specialised callee's variant for the memory its pointer arguments name is written
  // on first use (declared in decls_, defined after the other functions).
  std::string call(const ir::Expr& e) {
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

  std::string function(const ir::Function& f, const std::string& glslFunctionName) {
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
        const std::string value =
            p->type.k == K::Struct ? glslStructValue(p->type.name, values, m_.structs, m_.layouts)
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

  // ---- statements ----
  enum class LoopKind { Plain, WithContinuing, Switch, Continuing };

  static std::string pad(int d) { return std::string(static_cast<size_t>(d) * 2, ' '); }

  std::string block(const std::vector<const ir::Stmt*>& body, int d) {
    std::string s;
    for (const ir::Stmt* st : body) s += stmt(*st, d + 1);
    return "{\n" + s + pad(d) + "}";
  }

  std::string newLocal(const ir::Variable* v) {
    return locals_[v] = glslName(v->name) + "_" + std::to_string(++counter_);
  }

  std::string stmt(const ir::Stmt& s, int d) {  // bounded: the parser limits statement nesting
    const std::string p = pad(d);
    switch (s.kind) {
      case SK::Declare: {
        const Type& t = s.var->type;
        if (t.k == K::Ptr) return pointerLet(s, p);
        std::string code;
        if (s.value)
          code = expr(s.value);
        else if (t.k != K::Array && t.k != K::Struct)
          code = zeroOf(t);
        if (hoisted_.contains(s.var)) {  // declared before the loop body: assigned here
          if (!code.empty()) return p + name(s.var) + " = " + code + ";\n";
          return zeroFill(name(s.var), t, p);
        }
        const std::string n = newLocal(s.var);
        if ((t.k == K::Array || t.k == K::Struct) && code.empty())  // WGSL zeroes variables
          return p + t.glsl() + " " + n + dims(t) + ";\n" + zeroFill(n, t, p);
        return p + t.glsl() + " " + n + dims(t) + (code.empty() ? "" : " = " + code) + ";\n";
      }
      case SK::CompareExchange:
        return compareExchange(s, p);
      case SK::Assign: {
        const std::string target = place(s.target);
        const Type& t = s.target->type;
        const bool block = bufferBlocks_.contains(target);
        if (!block && !glslHasPadding(t, m_.structs, m_.layouts))
          return p + target + " = " + expr(s.value) + ";\n";
        // A block takes its members one by one; padding members stay unwritten, as in WGSL.
        const std::string tmp = "tg_copy_" + std::to_string(++counter_);
        return p + "{\n" + p + "  " + t.glsl() + " " + tmp + dims(t) + " = " + expr(s.value) +
               ";\n" + copyMembers(target, tmp, t, p + "  ") + p + "}\n";
      }
      case SK::Phony:
        if (s.value->type.k == K::Ptr && s.value->type.name != "function" &&
            s.value->type.name != "private")
          return staticUse(*s.value, p);
        if (s.value->type.k == K::Ptr) return p + "/* _ = */ " + expr(s.value) + ";\n";
        // A value: into an unused local, which glslang keeps (a bare expression statement it
        // drops, and with it the load): `_ = v;` is a static use of a buffer v, as `_ = &v;` is.
        return p + s.value->type.glsl() + " tg_use_" + std::to_string(++counter_) +
               dims(s.value->type) + " = " + expr(s.value) + ";\n";
      case SK::Increment:
        return p + expr(s.target) + "++;\n";
      case SK::Decrement:
        return p + expr(s.target) + "--;\n";
      case SK::Evaluate:
        return p + expr(s.value) + ";\n";
      case SK::Return:
        return s.value ? p + "return " + expr(s.value) + ";\n" : p + "return;\n";
      case SK::If: {
        std::string out = p + "if (" + expr(s.value) + ") " + block(s.body, d);
        if (s.elseBody.empty()) return out + "\n";
        if (s.elseBody.size() == 1 && s.elseBody[0]->kind == SK::If)
          return out + " else\n" + stmt(*s.elseBody[0], d);
        return out + " else " + block(s.elseBody, d) + "\n";
      }
      case SK::Block:
        return p + block(s.body, d) + "\n";
      case SK::While: {
        const std::string c = expr(s.value);
        loops_.push_back(LoopKind::Plain);
        std::string out = p + "while (" + c + ") " + block(s.body, d) + "\n";
        loops_.pop_back();
        return out;
      }
      case SK::For: {
        if (s.init && s.init->kind == SK::Declare && s.init->var->type.k == K::Ptr) {
          // A pointer `let` declares only its index temporaries: before the loop, in a block.
          ir::Stmt loop = s;
          loop.init = nullptr;
          const std::string temps = stmt(*s.init, d + 1);  // first: it binds the pointer
          return p + "{\n" + temps + stmt(loop, d + 1) + p + "}\n";
        }
        std::string init = s.init ? stmt(*s.init, 0) : ";";
        while (!init.empty() && init.back() == '\n') init.pop_back();
        const std::string cond = s.value ? expr(s.value) : "";
        std::string update;
        if (s.update) {
          update = stmt(*s.update, 0);
          while (!update.empty() && (update.back() == '\n' || update.back() == ';'))
            update.pop_back();
        }
        loops_.push_back(LoopKind::Plain);
        std::string out =
            p + "for (" + init + " " + cond + "; " + update + ") " + block(s.body, d) + "\n";
        loops_.pop_back();
        return out;
      }
      case SK::Loop:
        return loop(s, d);
      case SK::Break:
        if (loops_.back() == LoopKind::WithContinuing)
          return p + "{ " + breakFlags_.back() + " = true; break; }\n";
        return p + "break;\n";
      case SK::Continue: {
        if (loops_.back() == LoopKind::WithContinuing) return p + "break;  // continue\n";
        // In a switch in such a loop: a flag, and a break out of each switch (below) and then
        // out of the one-shot do-while.
        if (const int l = continuedLoop(true); l >= 0) {
          contFlags_.at(static_cast<size_t>(l)).second = true;
          return p + "{ " + contFlag(l) + " = true; break; }\n";
        }
        return p + "continue;\n";
      }
      case SK::Switch: {
        std::string out = p + "switch (" + expr(s.value) + ") {\n";
        loops_.push_back(LoopKind::Switch);
        for (const auto& c : s.cases) {
          for (const ir::Expr* e : c.selectors) out += p + "case " + expr(e) + ":\n";
          if (c.isDefault) out += p + "default:\n";
          out += p + "  " + block(c.body, d + 1) + "\n" + p + "  break;\n";
        }
        loops_.pop_back();
        out += p + "}\n";
        if (const int l = continuedLoop(false);
            l >= 0 && contFlags_.at(static_cast<size_t>(l)).second)
          out += p + "if (" + contFlag(l) + ") break;\n";
        return out;
      }
      case SK::BreakIf:  // only in a continuing block, which loop() writes
        return "";
    }
    return "";
  }

  // The loop with a continuing block that a `continue` here continues, through switches only
  // (its index in loops_), or -1. `inSwitch`: at least one switch in between.
  int continuedLoop(bool inSwitch) const {
    for (size_t i = loops_.size(); i-- > 0;) {
      if (loops_[i] == LoopKind::Switch) continue;
      const bool through = !inSwitch || i + 1 < loops_.size();
      return loops_[i] == LoopKind::WithContinuing && through ? static_cast<int>(i) : -1;
    }
    return -1;
  }
  std::string contFlag(int loop) const { return contFlags_.at(static_cast<size_t>(loop)).first; }

  // loop { body continuing { c; break if x; } }: `continue` must reach the continuing block, so
  // the body runs inside a one-shot do-while that `continue` leaves.
  std::string loop(const ir::Stmt& s, int d) {
    const std::string p = pad(d);
    const std::string brk = "tg_break_" + std::to_string(++counter_);
    loops_.push_back(s.continuing.empty() ? LoopKind::Plain : LoopKind::WithContinuing);
    breakFlags_.push_back(brk);
    std::string out;
    if (s.continuing.empty()) {
      out = p + "for (;;) " + block(s.body, d) + "\n";
    } else {
      // The body runs inside the do-while, so what it declares and the continuing block uses is
      // declared before it (and assigned where the body declares it).
      std::set<const ir::Variable*> used;
      for (const ir::Stmt* st : s.continuing) referenced(*st, used);
      std::string hoisted;
      for (const ir::Stmt* st : s.body) {
        if (st->kind != SK::Declare || !used.contains(st->var)) continue;
        hoisted_.insert(st->var);
        if (st->var->type.k == K::Ptr) continue;  // its index temporaries are (loopTemps_)
        hoisted += pad(d + 1) + st->var->type.glsl() + " " + newLocal(st->var) +
                   dims(st->var->type) + ";\n";
      }
      std::string inner;
      std::vector<std::string> outerTemps;
      std::swap(loopTemps_, outerTemps);
      auto& cont = contFlags_[loops_.size() - 1] = {"tg_cont_" + brk.substr(9), false};
      for (const ir::Stmt* st : s.body) inner += stmt(*st, d + 3);
      if (cont.second) inner = pad(d + 2) + "bool " + cont.first + " = false;\n" + inner;
      contFlags_.erase(loops_.size() - 1);
      std::swap(loopTemps_, outerTemps);
      for (const std::string& t : outerTemps) hoisted += pad(d + 1) + "uint " + t + ";\n";
      loops_.back() = LoopKind::Continuing;
      std::string continuing;
      for (const ir::Stmt* st : s.continuing) {
        if (st->kind == SK::BreakIf)
          continuing += pad(d + 1) + "if (" + expr(st->value) + ") break;\n";
        else
          continuing += stmt(*st, d + 1);
      }
      out = p + "for (;;) {\n" + hoisted + pad(d + 1) + "bool " + brk + " = false;\n" + pad(d + 1) +
            "do {\n" + inner + pad(d + 1) + "} while (false);\n" + pad(d + 1) + "if (" + brk +
            ") break;\n" + continuing + p + "}\n";
    }
    breakFlags_.pop_back();
    loops_.pop_back();
    return out;
  }

  // A strong compare-swap whose result fills WGSL's __atomic_compare_exchange_result struct.
  std::string compareExchange(const ir::Stmt& s, const std::string& p) {
    const Type& t = *s.target->type.elem;
    const std::string structName = glslName(s.var->type.name);
    if (compareExchangeStructs_.insert(structName).second)
      decls_ += "struct " + structName + " { " + t.glsl() + " w_old_value; bool w_exchanged; };\n";
    const std::string id = std::to_string(++counter_);
    const std::string cmp = "tg_cmp_" + id, old = "tg_old_" + id;
    const std::string n = newLocal(s.var);
    std::string out = p + t.glsl() + " " + cmp + " = " + expr(s.compare) + ";\n";
    out += p + t.glsl() + " " + old + " = atomicCompSwap(" + expr(s.target) + ", " + cmp + ", " +
           expr(s.value) + ");\n";
    return out + p + structName + " " + n + " = " + structName + "(" + old + ", " + old +
           " == " + cmp + ");\n";
  }

  // The variables a statement (and what it holds) refers to.
  static void referenced(const ir::Expr* e, std::set<const ir::Variable*>& out) {
    if (!e) return;
    if (e->kind == EK::Ref) out.insert(e->var);
    for (const ir::Expr* a : e->args) referenced(a, out);
  }
  static void referenced(const ir::Stmt& s, std::set<const ir::Variable*>& out) {
    for (const ir::Expr* e : {s.target, s.value, s.rhs, s.compare}) referenced(e, out);
    for (const auto* body : {&s.body, &s.elseBody, &s.continuing}) {
      for (const ir::Stmt* st : *body) referenced(*st, out);
    }
    if (s.init) referenced(*s.init, out);
    if (s.update) referenced(*s.update, out);
    for (const auto& c : s.cases) {
      for (const ir::Stmt* st : c.body) referenced(*st, out);
    }
  }

  // ---- expressions ----
  std::string args(const ir::Expr& e) {
    std::string out;
    for (size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + expr(e.args[i]);
    return out;
  }

  // A read of a uniform buffer that holds a split matrix (glsl_std140.h): its piece spelled in the
  // decomposed block; null when `e` reads no such buffer. With `pre` (a pointer `let` formed
  // here), run-time indices are evaluated once into temporaries, as pointerPath does.
  std::optional<Std140::Rep> uniformRep(const ir::Expr* e, std::string* pre = nullptr,
                                        const std::string& p = {}, bool hoisted = false) {
    using Rep = Std140::Rep;
    switch (e->kind) {
      case EK::Ref: {
        const ir::Variable& v = *e->var;
        if (v.kind != ir::Variable::Kind::Global || v.space != "uniform" ||
            !std140_.holdsSplitMatrix(v.type))
          return std::nullopt;
        if (v.type.k == K::Struct) return Rep{Rep::Kind::Block, name(&v), {}, {}};
        if (v.type.k == K::Array) return Rep{Rep::Kind::Mirror, name(&v), {}, {}};
        return Rep{Rep::Kind::Split, {}, {}, name(&v)};
      }
      case EK::Paren:
        return uniformRep(e->args[0], pre, p, hoisted);
      case EK::Member: {
        auto base = uniformRep(e->args[0], pre, p, hoisted);
        if (!base) return std::nullopt;
        if (base->kind == Rep::Kind::Plain)
          return Rep{Rep::Kind::Plain, base->code + "." + glslName(e->name), {}, {}};
        return std140_.member(base->code, glslName(e->name), e->type);
      }
      case EK::Index: {
        auto base = uniformRep(e->args[0], pre, p, hoisted);
        if (!base) return std::nullopt;
        const Type& bt = e->args[0]->type;
        const std::string code = bt.k == K::Array && base->kind != Rep::Kind::Plain
                                     ? base->code
                                     : std140_.value(*base, bt);
        std::string index = expr(e->args[1]);
        if (pre && !e->args[1]->constant) index = indexTemporary(index, *pre, p, hoisted);
        const std::string element = indexed(code, bt, index);
        if (bt.k == K::Array) return std140_.element(element, e->type);
        return Rep{Rep::Kind::Plain, element, {}, {}};  // a column, or a component
      }
      default:
        return std::nullopt;
    }
  }

  std::string expr(const ir::Expr* e) {  // bounded: the parser limits expression depth
    if (e->kind == EK::Ref || e->kind == EK::Member || e->kind == EK::Index) {
      if (auto r = uniformRep(e)) return std140_.value(*r, e->type);
    }
    switch (e->kind) {
      case EK::Literal:
        return literalText(*e->constant, e->type);
      case EK::Ref:
        if (e->var->inlined) return expr(e->var->inlined);
        if (e->type.k == K::Ptr) {  // spelled as the memory it points at
          if (auto it = pointers_.find(e->var); it != pointers_.end()) return it->second;
          if (auto it = binding_.find(e->var); it != binding_.end()) return it->second;
          return name(e->var);  // an inout parameter
        }
        if (isBufferStruct(*e)) return bufferStructValue(*e->var);
        return name(e->var);
      case EK::Paren:
        return "(" + expr(e->args[0]) + ")";
      case EK::Unary:
        return "(" + e->name + expr(e->args[0]) + ")";
      case EK::Binary:
        return binary(*e);
      case EK::Index:
        return indexed(expr(e->args[0]), e->args[0]->type, expr(e->args[1]), bounds_.inRange(*e));
      case EK::AddressOf:
        return place(e->args[0]);
      case EK::Deref: {  // a whole buffer struct as a value: rebuilt, as bufferStructValue does
        const std::string code = place(e);
        auto it = bufferBlocks_.find(code);
        return it != bufferBlocks_.end() ? bufferStructValue(*it->second) : code;
      }
      case EK::Member:  // a buffer's block instance names its members directly
        return place(e->args[0]) + "." + glslName(e->name);
      case EK::Swizzle:
        return expr(e->args[0]) + "." + e->name;
      case EK::Convert: {  // f32 (and f16, through f32: exact) to integers saturates
        const Type& from = e->args[0]->type.scalarType();
        const Type& to = e->type.scalarType();
        const bool vec = e->type.k == K::Vec;
        const std::string v = vec ? "v" : "";
        std::string arg = expr(e->args[0]);
        if (from.k == K::F16 && (to.k == K::I32 || to.k == K::U32))
          arg = (vec ? "vec" + std::to_string(e->type.n) : std::string("float")) + "(" + arg + ")";
        const bool real = from.k == K::F32 || from.k == K::F16;
        if (real && to.k == K::I32) return "tg_" + v + "f2i(" + arg + ")";
        if (real && to.k == K::U32) return "tg_" + v + "f2u(" + arg + ")";
        return e->type.glsl() + "(" + arg + ")";
      }
      case EK::Bitcast: {  // scalars or vectors; int <-> uint conversions keep the bits
        const Type& from = e->args[0]->type.scalarType();
        const Type& to = e->type.scalarType();
        if (from.k == K::F16 || to.k == K::F16) return bitcastF16(*e);
        std::string fn = e->type.glsl();
        if (from.k == K::F32) fn = to.k == K::U32 ? "floatBitsToUint" : "floatBitsToInt";
        if (to.k == K::F32) fn = from.k == K::U32 ? "uintBitsToFloat" : "intBitsToFloat";
        return fn + "(" + expr(e->args[0]) + ")";
      }
      case EK::Construct:
        return construct(*e);
      case EK::Call:
        return call(*e);
      case EK::Builtin: {
        if (e->name == "dot" && e->type.isInteger()) return "tg_dot(" + args(*e) + ")";
        if (e->name == "modf" || e->name == "frexp") return modfFrexp(*e);
        if (const SubgroupFunction* s = subgroupFunction(e->name))
          return std::string(s->glsl) + "(" + args(*e) + ")";
        std::string code = builtinName(e->name) + "(" + args(*e) + ")";
        if ((e->name == "firstLeadingBit" || e->name == "countOneBits") &&
            e->type.scalarType().k == K::U32)
          code = e->type.glsl() + "(" + code + ")";  // findMSB and bitCount return int
        return code;
      }
      case EK::ArrayLength:
        return "uint(" + expr(e->args[0]) + ".length())";
      case EK::Atomic:
        return atomic(*e);
      case EK::Barrier: {
        if (e->name == "storageBarrier") return "memoryBarrierBuffer(), barrier()";
        if (e->name != "workgroupUniformLoad") return "barrier()";
        // (barrier(), t = *p, barrier(), t), t a module-scope (per-invocation) temporary.
        const std::string t = "tg_wul_" + std::to_string(++counter_);
        decls_ += e->type.glsl() + " " + t + dims(e->type) + ";\n";
        return "(barrier(), " + t + " = " + expr(e->args[0]) + ", barrier(), " + t + ")";
      }
      case EK::Select:
        if (e->args[2]->type.k == K::Vec)  // component-wise: GLSL's mix with a bvec
          return "mix(" + expr(e->args[0]) + ", " + expr(e->args[1]) + ", " + expr(e->args[2]) +
                 ")";
        return "(" + expr(e->args[2]) + " ? " + expr(e->args[1]) + " : " + expr(e->args[0]) + ")";
    }
    return "";
  }

  // `_ = &v;` is a static use of v in WGSL, so layout "auto" keeps v's binding; the shim builds
  // that layout from the SPIR-V's uses. Read one scalar of the memory (a runtime-sized array:
  // its length, so no element need exist) into an unused local, which glslang keeps as it does
  // not optimise.
  std::string staticUse(const ir::Expr& pointer, const std::string& p) {
    std::string code = expr(&pointer);
    Type t = *pointer.type.elem;
    for (;;) {
      if (t.k == K::Array && t.n == 0) {
        code += ".length()";
        t = Type::scalar(K::I32);
      } else if (t.k == K::Array) {
        code += "[0]";
        t = *t.elem;
        continue;
      } else if (t.k == K::Struct) {
        const auto& first = m_.structs.at(t.name).front();
        code += "." + glslName(first.first);
        t = first.second;
        continue;
      }
      break;
    }
    return p + t.glsl() + " tg_use_" + std::to_string(++counter_) + " = " + code + ";\n";
  }

  // bitcast between f16 vectors and 32-bit scalars or vec2s, through uint / uvec2 bits:
  // packFloat2x16 puts the first component in the low half, as WGSL's byte order does.
  std::string bitcastF16(const ir::Expr& e) {
    const Type& fromType = e.args[0]->type;
    const K from = fromType.scalarType().k, to = e.type.scalarType().k;
    const bool pair = fromType.k == K::Vec && (from == K::F16 ? fromType.n == 4 : fromType.n == 2);
    std::string u = expr(e.args[0]);  // the bits, as uint (uvec2 for 64 bits)
    if (from == K::F16)
      u = (pair ? "tg_h4bits(" : "packFloat2x16(") + u + ")";
    else if (from == K::F32)
      u = "floatBitsToUint(" + u + ")";
    else if (from == K::I32)
      u = (pair ? "uvec2(" : "uint(") + u + ")";
    if (to == K::F16) return (pair ? "tg_bitsh4(" : "unpackFloat2x16(") + u + ")";
    if (to == K::F32) return "uintBitsToFloat(" + u + ")";
    if (to == K::I32) return (pair ? "ivec2(" : "int(") + u + ")";
    return u;
  }

  // modf(x) / frexp(x): a helper fills WGSL's result struct from GLSL's out parameter.
  std::string modfFrexp(const ir::Expr& e) {
    const std::string& s = e.type.name;
    const std::string helper = "tg_" + e.name + "_" + std::to_string(e.args[0]->type.n) +
                               (e.args[0]->type.scalarType().k == K::F16 ? "h" : "");
    if (builtinStructs_.insert(s).second) {
      const std::string st = glslName(s), second = glslName(m_.structs.at(s)[1].first);
      decls_ += "struct " + st + " {\n" + glslMemberDecls(s, m_.structs, m_.layouts, "  ", "\n") +
                "};\n" + st + " " + helper + "(" + e.args[0]->type.glsl() + " x) { " + st +
                " r; r.w_fract = " + e.name + "(x, r." + second + "); return r; }\n";
    }
    return helper + "(" + expr(e.args[0]) + ")";
  }

  // Clamped so a stray index never leaves the binding (WebGPU allows any in-bounds element),
  // unless IndexBounds proved it in range.
  static std::string indexed(const std::string& base, const Type& bt, const std::string& index,
                             bool inRange = false) {
    if (inRange) return base + "[" + index + "]";
    const std::string limit = bt.k == K::Array && !bt.n ? "uint(" + base + ".length()) - 1u"
                              : bt.overrideSized()      ? "uint(" + glslName(bt.name) + ") - 1u"
                                                        : std::to_string(bt.n - 1) + "u";
    return base + "[min(uint(" + index + "), " + limit + ")]";
  }

  // `let p = &r;` declares nothing: each use of p spells r, with r's run-time indices evaluated
  // once, here, into temporaries (WGSL fixes the memory a pointer names where it is formed).
  std::string pointerLet(const ir::Stmt& s, const std::string& p) {
    std::string pre;
    pointers_[s.var] = pointerPath(s.value, pre, p, hoisted_.contains(s.var));
    return pre;
  }
  // A run-time index of a pointer `let`, evaluated once where the pointer is formed.
  std::string indexTemporary(const std::string& index, std::string& pre, const std::string& p,
                             bool hoisted) {
    const std::string t = "tg_i_" + std::to_string(++counter_);
    if (hoisted) loopTemps_.push_back(t);
    pre += p + (hoisted ? "" : "uint ") + t + " = uint(" + index + ");\n";
    return t;
  }
  std::string pointerPath(const ir::Expr* e, std::string& pre, const std::string& p, bool hoisted) {
    // Into a uniform buffer holding a split matrix: the value it names (uniform memory is
    // read-only).
    if (e->kind == EK::Ref || e->kind == EK::Member || e->kind == EK::Index) {
      if (auto r = uniformRep(e, &pre, p, hoisted)) return std140_.value(*r, e->type);
    }
    switch (e->kind) {
      case EK::Paren:
      case EK::AddressOf:
      case EK::Deref:
        return pointerPath(e->args[0], pre, p, hoisted);
      case EK::Index: {
        const std::string base = pointerPath(e->args[0], pre, p, hoisted);
        std::string index = expr(e->args[1]);
        if (!e->args[1]->constant) index = indexTemporary(index, pre, p, hoisted);
        return indexed(base, e->args[0]->type, index);
      }
      case EK::Member:
        return (isBufferStruct(*e->args[0]) ? name(e->args[0]->var)
                                            : pointerPath(e->args[0], pre, p, hoisted)) +
               "." + glslName(e->name);
      default:
        return place(e);
    }
  }

  // The memory `e` names, spelled to be read, written or indexed: a buffer struct as its block
  // instance, `*p` as what p points at.
  std::string place(const ir::Expr* e) {
    if (e->kind == EK::Ref || e->kind == EK::Member || e->kind == EK::Index) {
      if (auto r = uniformRep(e)) return std140_.value(*r, e->type);  // read-only: its value
    }
    if (isBufferStruct(*e)) return name(e->var);
    if (e->kind == EK::Paren) return place(e->args[0]);  // `(*p).m`: a postfix chain either way
    if (e->kind == EK::Deref) {
      const ir::Expr* p = e->args[0];
      while (p->kind == EK::Paren) p = p->args[0];
      return p->kind == EK::AddressOf ? place(p->args[0]) : expr(p);
    }
    return expr(e);
  }

  std::string binary(const ir::Expr& e) {
    const std::string l = expr(e.args[0]), r = expr(e.args[1]);
    const std::string& op = e.name;
    if (op == "<<" || op == ">>")  // WGSL masks a run-time amount to the bit width
      return "(" + l + " " + op + " (" + r + " & 31u))";
    if (e.type.k == K::Vec && e.type.elem->k == K::Bool && e.args[0]->type.k == K::Vec &&
        e.args[0]->type.elem->k != K::Bool) {  // component-wise comparison
      const char* fn = op == "=="   ? "equal"
                       : op == "!=" ? "notEqual"
                       : op == "<"  ? "lessThan"
                       : op == ">"  ? "greaterThan"
                       : op == "<=" ? "lessThanEqual"
                                    : "greaterThanEqual";
      return std::string(fn) + "(" + l + ", " + r + ")";
    }
    if ((op == "&" || op == "|") && e.type.scalarType().k == K::Bool) {  // both sides evaluated
      const std::string u = e.type.k == K::Vec ? "uvec" + std::to_string(e.type.n) : "uint";
      return e.type.glsl() + "(" + u + "(" + l + ") " + op + " " + u + "(" + r + "))";
    }
    const bool integer = e.type.scalarType().isInteger();
    if ((op == "/" && integer) || op == "%") {
      const std::string fn = op == "/" ? "div(" : "rem(";
      if (e.type.k != K::Vec) return "tg_" + fn + l + ", " + r + ")";
      // Component-wise, a scalar operand splatted to the vector.
      const auto splat = [&](const ir::Expr* x, const std::string& code) {
        return x->type.k == K::Vec ? code : e.type.glsl() + "(" + code + ")";
      };
      return "tg_v" + fn + splat(e.args[0], l) + ", " + splat(e.args[1], r) + ")";
    }
    return "(" + l + " " + op + " " + r + ")";
  }

  std::string construct(const ir::Expr& e) {
    const Type& t = e.type;
    if (e.args.empty()) return zeroValue(t);
    if (t.k == K::Struct) {  // padding members take zeros
      std::vector<std::string> values;
      for (const ir::Expr* a : e.args) values.push_back(expr(a));
      return glslStructValue(t.name, values, m_.structs, m_.layouts);
    }
    return t.glsl() + dims(t) + "(" + args(e) + ")";
  }

  // The zero value of a constructible type as one expression (the resolver bounds its size).
  std::string zeroValue(const Type& t) const {
    if (t.k == K::Vec || t.k == K::Mat) return zeroOf(t);
    if (t.k == K::Array) {
      std::string code = t.glsl() + dims(t) + "(";
      for (int i = 0; i < t.n; ++i) code += (i ? ", " : "") + zeroValue(*t.elem);
      return code + ")";
    }
    if (t.k == K::Struct) {
      std::vector<std::string> values;
      for (const auto& [mn, mt] : m_.structs.at(t.name)) values.push_back(zeroValue(mt));
      return glslStructValue(t.name, values, m_.structs, m_.layouts);
    }
    return zeroOf(t);
  }

  // A storage or uniform variable of struct type is a GLSL block instance, which is no value of
  // the struct type: as a value it is rebuilt from its members, and assigned member by member.
  static bool isBufferStruct(const ir::Expr& e) {
    return e.kind == EK::Ref && e.var->type.k == K::Struct &&
           (e.var->space == "storage" || e.var->space == "uniform");
  }
  std::string bufferStructValue(const ir::Variable& v) {
    std::vector<std::string> values;
    for (const auto& [mn, mt] : m_.structs.at(v.type.name))
      values.push_back(name(&v) + "." + glslName(mn));
    return glslStructValue(v.type.name, values, m_.structs, m_.layouts);
  }

  std::string atomic(const ir::Expr& e) {
    const std::string target = expr(e.args[0]);
    if (e.name == "atomicLoad") return "atomicOr(" + target + ", " + zeroOf(e.type) + ")";
    const std::string v = expr(e.args[1]);
    if (e.name == "atomicStore") return "atomicExchange(" + target + ", " + v + ")";
    if (e.name == "atomicSub") return "atomicAdd(" + target + ", -(" + v + "))";
    return e.name + "(" + target + ", " + v + ")";  // GLSL spells the others as WGSL does
  }

  const ir::Module& m_;
  IndexBounds bounds_;  // indices that need no clamp
  Std140 std140_{m_};   // uniform buffers holding a split matrix
  std::string header_, decls_, body_;
  struct ZeroAtEntry {
    std::string name;
    Type type;
    bool workgroup;  // else private
  };
  std::vector<ZeroAtEntry> zeroAtEntry_;
  std::map<const ir::Variable*, std::string> locals_;
  int counter_ = 0;  // numbers locals, loop break flags and compare-exchange temporaries
  std::vector<LoopKind> loops_;
  std::vector<std::string> breakFlags_;
  // A loop with a continuing block (by its index in loops_): the flag a `continue` in a switch
  // sets, and whether one does.
  std::map<size_t, std::pair<std::string, bool>> contFlags_;
  std::set<std::string> compareExchangeStructs_;
  std::set<std::string> builtinStructs_;   // modf and frexp results declared so far
  std::set<const ir::Variable*> hoisted_;  // declared before a loop body with a continuing block
  std::vector<std::string> loopTemps_;     // index temporaries of such a pointer `let`
  std::map<const ir::Variable*, std::string> pointers_;  // a pointer `let`: the memory it names
  std::map<const ir::Variable*, std::string> binding_;   // a specialised pointer parameter's
  std::map<const ir::Function*, std::map<std::string, std::string>> specialisationNames_;
  std::string specialisations_;
  std::map<std::string, const ir::Variable*> bufferBlocks_;  // storage/uniform struct instances
};

}  // namespace

std::string writeGlsl(const ir::Module& module) {
  return GlslWriter(module).run();
}

}  // namespace wgsl::detail
