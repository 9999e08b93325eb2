// The GLSL writer's statements (glsl_writer_class.h).
#include "glsl_writer_class.h"
#include "subgroups.h"

#include "glsl_prelude.h"
#include "layout.h"

namespace wgsl::detail {

std::string GlslWriter::block(const std::vector<const ir::Stmt*>& body, int d) {
  std::string s;
  for (const ir::Stmt* st : body) s += stmt(*st, d + 1);
  return "{\n" + s + pad(d) + "}";
}

std::string GlslWriter::newLocal(const ir::Variable* v) {
  return locals_[v] = glslName(v->name) + "_" + std::to_string(++counter_);
}

std::string GlslWriter::stmt(const ir::Stmt& s, int d) {
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
      return p + "{\n" + p + "  " + t.glsl() + " " + tmp + dims(t) + " = " + expr(s.value) + ";\n" +
             copyMembers(target, tmp, t, p + "  ") + p + "}\n";
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

int GlslWriter::continuedLoop(bool inSwitch) const {
  for (size_t i = loops_.size(); i-- > 0;) {
    if (loops_[i] == LoopKind::Switch) continue;
    const bool through = !inSwitch || i + 1 < loops_.size();
    return loops_[i] == LoopKind::WithContinuing && through ? static_cast<int>(i) : -1;
  }
  return -1;
}

std::string GlslWriter::loop(const ir::Stmt& s, int d) {
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
      hoisted +=
          pad(d + 1) + st->var->type.glsl() + " " + newLocal(st->var) + dims(st->var->type) + ";\n";
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

std::string GlslWriter::compareExchange(const ir::Stmt& s, const std::string& p) {
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

void GlslWriter::referenced(const ir::Expr* e, std::set<const ir::Variable*>& out) {
  if (!e) return;
  if (e->kind == EK::Ref) out.insert(e->var);
  for (const ir::Expr* a : e->args) referenced(a, out);
}

void GlslWriter::referenced(const ir::Stmt& s, std::set<const ir::Variable*>& out) {
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

}  // namespace wgsl::detail
