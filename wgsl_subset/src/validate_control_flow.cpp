#include <set>

#include "validator.h"

namespace wgsl::detail {
namespace {

using SK = ir::Stmt::Kind;
using Body = std::vector<const ir::Stmt*>;

bool endsWithReturn(const Body& body) {
  if (body.empty()) return false;
  const ir::Stmt& last = *body.back();
  if (last.kind == SK::Return) return true;
  if (last.kind == SK::If)
    return endsWithReturn(last.body) && !last.elseBody.empty() && endsWithReturn(last.elseBody);
  if (last.kind == SK::Block) return endsWithReturn(last.body);
  return last.kind == SK::Loop;  // a loop without break runs forever or returns
}

// Whether a `loop` body can leave the loop: a `return` anywhere, or a `break` / `break if` that
// belongs to this loop (not to a nested loop or switch).
bool loopExits(const Body& body, bool nested = false) {
  for (const ir::Stmt* st : body) {
    switch (st->kind) {
      case SK::Return:
        return true;
      case SK::Break:
      case SK::BreakIf:
        if (!nested) return true;
        break;
      case SK::If:
      case SK::Block:
        if (loopExits(st->body, nested) || loopExits(st->elseBody, nested)) return true;
        break;
      case SK::For:
      case SK::While:
      case SK::Loop:
        if (loopExits(st->body, true) || loopExits(st->continuing, true)) return true;
        break;
      case SK::Switch:
        for (const auto& c : st->cases) {
          if (loopExits(c.body, true)) return true;
        }
        break;
      default:
        break;
    }
  }
  return false;
}

// What a break or continue leaves: the constructs around it, innermost last.
enum class Construct { Loop, LoopWithContinuing, Switch, Continuing };

class ControlFlow {
 public:
  void body(const Body& b) {
    for (const ir::Stmt* s : b) stmt(*s);
  }

 private:
  void stmt(const ir::Stmt& s) {  // bounded: the parser limits statement nesting
    switch (s.kind) {
      case SK::Return:
        if (inContinuing_) fail(s.pos, "a continuing block must not contain a return statement");
        return;
      case SK::If:
        body(s.body);
        body(s.elseBody);
        return;
      case SK::Block:
        body(s.body);
        return;
      case SK::While:
      case SK::For:
        if (s.init) stmt(*s.init);
        if (s.update) stmt(*s.update);
        constructs_.push_back(Construct::Loop);
        body(s.body);
        constructs_.pop_back();
        return;
      case SK::Loop:
        if (!loopExits(s.body) && !loopExits(s.continuing)) fail(s.pos, "loop does not exit");
        constructs_.push_back(s.continuing.empty() ? Construct::Loop
                                                   : Construct::LoopWithContinuing);
        body(s.body);
        constructs_.back() = Construct::Continuing;
        ++inContinuing_;
        for (const ir::Stmt* c : s.continuing) {
          if (c->kind != SK::BreakIf) stmt(*c);
        }
        --inContinuing_;
        constructs_.pop_back();
        return;
      case SK::Break:
        if (constructs_.empty()) fail(s.pos, "'break' outside a loop or switch");
        if (constructs_.back() == Construct::Continuing)
          fail(s.pos, "'break' must not be used to exit from a continuing block; use 'break if'");
        return;
      case SK::Continue:
        continueStmt(s);
        return;
      case SK::BreakIf:
        fail(s.pos, "'break if' is only allowed at the end of a continuing block");
      case SK::Switch:
        switchStmt(s);
        return;
      default:
        return;
    }
  }

  void continueStmt(const ir::Stmt& s) {
    if (constructs_.empty()) fail(s.pos, "'continue' outside a loop");
    for (auto it = constructs_.rbegin(); it != constructs_.rend(); ++it) {
      if (*it == Construct::Continuing)
        fail(s.pos, "'continue' must not be used to exit from a continuing block");
      if (*it != Construct::Switch) break;
    }
  }

  void switchStmt(const ir::Stmt& s) {
    bool sawDefault = false;
    std::set<int64_t> seen;
    constructs_.push_back(Construct::Switch);
    for (const auto& c : s.cases) {
      for (const ir::Expr* e : c.selectors) {
        if (!seen.insert(static_cast<int64_t>(*e->constant)).second)
          fail(e->pos, "duplicate case selector " + literalText(*e->constant, e->type));
      }
      if (c.isDefault) {
        if (sawDefault) fail(c.pos, "a switch has at most one default clause");
        sawDefault = true;
      }
      body(c.body);
    }
    constructs_.pop_back();
    if (!sawDefault) fail(s.pos, "a switch needs a default clause");
  }

  std::vector<Construct> constructs_;
  int inContinuing_ = 0;
};

}  // namespace

void checkControlFlow(const ir::Function& f) {
  ControlFlow().body(f.body);
  if (!f.entryPoint && f.returnType.k != Type::K::Void && !endsWithReturn(f.body))
    fail(f.pos, "function '" + f.name + "' must end with a return statement");
}

void validate(const ir::Module& module) {
  for (const ir::Function& f : module.functions) checkControlFlow(f);
  checkUniformity(module);
  if (!module.entry) fail(SourcePos{1, 1}, "no @compute entry point");
}

}  // namespace wgsl::detail
