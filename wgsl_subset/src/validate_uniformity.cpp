// Uniformity, a simplified form of WGSL's analysis. Values that may differ between invocations:
// the invocation-id builtins, read_write module variables (storage, workgroup, private), atomics,
// and what is computed or assigned from them or under control flow that depends on them.
// Barriers need uniform control flow. With `enable subgroups;` a second pass, at subgroup scope
// (as Tint's), holds subgroup functions to subgroup-uniform control flow: there the results of
// reductions, votes and broadcasts are uniform and barriers are not checked; at workgroup scope
// every subgroup function's result may differ between invocations. Each function is summarised for
// its callers: whether it reaches a barrier, which parameters must be uniform (a barrier depends on
// them), and which its result depends on. Functions are checked callees first (the module's
// declaration order).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "subgroups.h"
#include "validator.h"

namespace wgsl::detail {
namespace {

using SK = ir::Stmt::Kind;
using EK = ir::Expr::Kind;
using VK = ir::Variable::Kind;

// Bit 0 says "may differ between invocations"; bit 1 + i says "depends on the current function's
// parameter i" (parameters past 61 share bit 63, erring towards requiring uniformity), so a
// function's summary can be applied to each call's arguments.
using Taint = uint64_t;
constexpr Taint kNonUniform = 1;
Taint paramBit(size_t i) {
  return Taint{2} << std::min<size_t>(i, 62);
}

struct Summary {
  bool reachesBarrier = false;
  Taint result = 0;                 // what the result depends on
  Taint required = 0;               // parameters a barrier depends on
  std::map<size_t, Taint> written;  // what is stored through each pointer parameter
};

class Uniformity {
 public:
  explicit Uniformity(bool subgroupScope) : subgroupScope_(subgroupScope) {}
  void function(const ir::Function& f) {
    returned_ = result_ = required_ = 0;
    written_.clear();
    reachesBarrier_ = false;
    for (const ir::Variable* p : f.params) {
      if (!f.entryPoint)
        taint_[p] = paramBit(p->paramIndex);
      else if (p->builtin != "workgroup_id" && p->builtin != "num_workgroups" &&
               p->builtin != "subgroup_size")
        taint_[p] = kNonUniform;
    }
    checkBlock(f.body);
    summaries_[&f] = {reachesBarrier_, result_, required_, written_};
  }

 private:
  // ---- values ----
  Taint seed(const ir::Variable& v) const {
    if (v.kind != VK::Global) return 0;
    if (v.space == "storage") return v.readOnly ? 0 : kNonUniform;
    return v.space == "workgroup" || v.space == "private" ? kNonUniform : 0;
  }
  Taint taint(const ir::Expr& e) {  // bounded: the parser limits expression depth
    switch (e.kind) {
      case EK::Ref: {
        if (e.var->kind == VK::Let && e.var->type.k == Type::K::Ptr)
          return taint(*e.var->init);  // what the pointer names, as it is now
        if (auto it = taint_.find(e.var); it != taint_.end()) return it->second;
        return seed(*e.var);
      }
      case EK::Atomic:
        return kNonUniform;
      case EK::Builtin:
        if (const SubgroupFunction* s = subgroupFunction(e.name))
          return subgroupScope_ && s->uniformResult ? 0 : kNonUniform;
        {
          Taint t = 0;
          for (const ir::Expr* a : e.args) t |= taint(*a);
          return t;
        }
      case EK::ArrayLength:
        return 0;
      case EK::Barrier:  // workgroupUniformLoad's value is uniform where its pointer is
        return e.args.empty() ? 0 : pointerTaint(*e.args[0]);
      case EK::Call: {
        const Summary& s = summaries_.at(e.function);
        Taint t = s.result & kNonUniform;
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (s.result & paramBit(i)) t |= taint(*e.args[i]);
        }
        return t;
      }
      default: {
        Taint t = 0;
        for (const ir::Expr* a : e.args) t |= taint(*a);
        return t;
      }
    }
  }
  // What the memory a reference names depends on: the indices on its way (through pointer lets).
  Taint pointerTaint(const ir::Expr& e) {
    switch (e.kind) {
      case EK::Index:
        return taint(*e.args[1]) | pointerTaint(*e.args[0]);
      case EK::Member:
      case EK::Paren:
      case EK::Deref:
      case EK::AddressOf:
        return pointerTaint(*e.args[0]);
      case EK::Ref:
        if (e.var->kind == VK::Let && e.var->type.k == Type::K::Ptr)
          return pointerTaint(*e.var->init);
        return 0;  // a variable, or a workgroup pointer parameter (its argument has no run-time
                   // index: the resolver keeps those out)
      default:
        return taint(e);
    }
  }
  void grow(Taint& x, Taint t) {
    if ((x | t) != x) x |= t, changed_ = true;
  }
  void markAssigned(const ir::Expr& target, Taint value) {
    const ir::Expr* root = &target;
    for (;;) {  // through accesses and pointers to the variable written
      if (root->kind == EK::Ref && root->var->kind == VK::Let && root->var->type.k == Type::K::Ptr)
        root = root->var->init;
      else if (root->kind == EK::Index || root->kind == EK::Member || root->kind == EK::Swizzle ||
               root->kind == EK::Paren || root->kind == EK::Deref || root->kind == EK::AddressOf)
        root = root->args[0];
      else
        break;
    }
    if (root->kind == EK::Ref && root->var->kind == VK::Var)
      grow(taint_[root->var], value | flow());
    if (root->kind == EK::Ref && root->var->kind == VK::Param && root->var->type.k == Type::K::Ptr)
      grow(written_[root->var->paramIndex], value | flow());
  }

  // ---- control flow ----
  Taint flow() const {
    Taint t = returned_;
    for (const Taint f : flowStack_) t |= f;
    return t;
  }
  struct Flow {  // control flow that depends on `t` for the statement's extent
    Flow(Uniformity& owner, Taint t) : u(owner), at(owner.flowStack_.size()) {
      u.flowStack_.push_back(t);
    }
    ~Flow() { u.flowStack_.pop_back(); }
    Flow(const Flow&) = delete;
    Flow& operator=(const Flow&) = delete;
    Uniformity& u;
    size_t at;  // this entry in flowStack_
  };
  // A break or continue under non-uniform flow leaves fewer invocations in the rest of the
  // construct it continues or leaves (after a loop or switch, invocations reconverge).
  void exitConstruct(size_t flowIndex) { flowStack_[flowIndex] |= flow(); }

  // A barrier, or a call to a function that reaches one, needs uniform control flow here; flow
  // that depends on this function's parameters makes them required-uniform.
  void requireUniformFlow(SourcePos pos, const std::string& name) {
    const Taint t = flow();
    if (t & kNonUniform) fail(pos, "'" + name + "' must only be called from uniform control flow");
    required_ |= t;
    reachesBarrier_ = true;
  }

  // The barriers an expression reaches, in evaluation order.
  void checkExpr(const ir::Expr* e) {  // bounded: the parser limits expression depth
    if (!e) return;
    if (e->kind == EK::Builtin && subgroupScope_) {
      if (const SubgroupFunction* s = subgroupFunction(e->name)) {
        requireUniformFlow(e->pos, e->name);
        if (s->args == SubgroupFunction::Args::NumericU32) {  // delta / mask
          const Taint t = taint(*e->args[1]);
          if (t & kNonUniform)
            fail(e->args[1]->pos, "possibly non-uniform value passed as the second argument of '" +
                                      e->name + "', which must be uniform");
          required_ |= t;
        }
      }
    }
    if (e->kind == EK::Barrier && !subgroupScope_) requireUniformFlow(e->pos, e->name);
    if (e->kind == EK::Barrier && !e->args.empty() && !subgroupScope_) {
      const Taint t = pointerTaint(*e->args[0]);
      if (t & kNonUniform)
        fail(e->args[0]->pos, "possibly non-uniform pointer passed to 'workgroupUniformLoad'");
      required_ |= t;
    }
    if (e->kind == EK::Call) {
      const Summary& s = summaries_.at(e->function);
      if (s.reachesBarrier) {
        requireUniformFlow(e->pos, e->name);
        for (size_t i = 0; i < e->args.size(); ++i) {
          if (!(s.required & paramBit(i))) continue;
          const Taint t = taint(*e->args[i]);
          if (t & kNonUniform)
            fail(e->args[i]->pos, "argument " + std::to_string(i + 1) + " of '" + e->name +
                                      "' must be uniform: a barrier in '" + e->name +
                                      "' depends on it");
          required_ |= t;
        }
      }
    }
    for (const ir::Expr* a : e->args) checkExpr(a);
    if (e->kind == EK::Call) {  // stores through pointer arguments
      for (const auto& [i, w] : summaries_.at(e->function).written) {
        Taint value = w & kNonUniform;
        for (size_t j = 0; j < e->args.size(); ++j) {
          if (w & paramBit(j)) value |= taint(*e->args[j]);
        }
        markAssigned(*e->args[i], value);
      }
    }
  }

  // Statements after a return, break or continue never run and do not contribute (as in Tint,
  // which stops at the first statement whose behaviours exclude 'next').
  void checkBlock(const std::vector<const ir::Stmt*>& body) {
    for (const ir::Stmt* s : body) {
      check(*s);
      if (s->kind == SK::Return || s->kind == SK::Break || s->kind == SK::Continue) return;
    }
  }
  void loopBody(const ir::Stmt& s) {
    const Flow f(*this, (s.value ? taint(*s.value) : 0) | loopTaint_[&s]);
    exits_.push_back({f.at, f.at});
    checkBlock(s.body);
    for (const ir::Stmt* c : s.continuing) {
      if (c->kind == SK::BreakIf)
        checkExpr(c->value);
      else
        check(*c);
    }
    exits_.pop_back();
  }

  void check(const ir::Stmt& s) {  // bounded: the parser limits statement nesting
    switch (s.kind) {
      case SK::Declare:
        checkExpr(s.value);
        taint_[s.var] |= (s.value ? taint(*s.value) : 0) | (s.var->kind == VK::Var ? flow() : 0);
        return;
      case SK::CompareExchange:
        checkExpr(s.target);
        checkExpr(s.compare);
        checkExpr(s.value);
        taint_[s.var] |= kNonUniform;
        return;
      case SK::Assign:
        markAssigned(*s.target, taint(*(s.rhs ? s.rhs : s.value)));
        checkExpr(s.target);
        checkExpr(s.rhs ? s.rhs : s.value);
        return;
      case SK::Increment:
      case SK::Decrement:
        markAssigned(*s.target, 0);
        checkExpr(s.target);
        return;
      case SK::Evaluate:
      case SK::Phony:
        checkExpr(s.value);
        return;
      case SK::Return:
        // The result depends on the value and on the flow that chose this return; after a
        // return under such flow the rest of the function runs for fewer invocations.
        result_ |= (s.value ? taint(*s.value) : 0) | flow();
        returned_ |= flow();
        checkExpr(s.value);
        return;
      case SK::If: {
        checkExpr(s.value);
        const Flow f(*this, taint(*s.value));
        checkBlock(s.body);
        checkBlock(s.elseBody);
        return;
      }
      case SK::Block:
        checkBlock(s.body);
        return;
      case SK::While:
        checkExpr(s.value);
        fixLoop(s);
        loopBody(s);
        return;
      case SK::For:
        fixLoop(s);
        if (s.init) check(*s.init);
        checkExpr(s.value);
        if (s.update) check(*s.update);
        loopBody(s);
        return;
      case SK::Loop:
        fixLoop(s);
        loopBody(s);
        return;
      case SK::Break:
        if (!exits_.empty()) exitConstruct(exits_.back().first);
        return;
      case SK::Continue:
        if (!exits_.empty()) exitConstruct(exits_.back().second);
        return;
      case SK::Switch: {
        checkExpr(s.value);
        const Flow f(*this, taint(*s.value));
        exits_.push_back({f.at, exits_.empty() ? f.at : exits_.back().second});
        for (const auto& c : s.cases) checkBlock(c.body);
        exits_.pop_back();
        return;
      }
      default:
        return;
    }
  }

  // Loop-carried non-uniformity: before the outermost loop is checked, a fixed point over it
  // joins what every variable may be assigned anywhere in the loop and the flow at every exit of
  // each loop (loopTaint_: break, continue, return, break if, the condition), which then covers
  // the whole body, as the next iteration runs it. Not flow-sensitive inside the loop: it may
  // reject what Tint accepts (a variable reset to a uniform value before its use), never the
  // reverse.
  void fixLoop(const ir::Stmt& loop) {
    if (inFixedPoint_) return;
    inFixedPoint_ = true;
    do {
      changed_ = false;
      collect(loop, Exits{});
    } while (changed_);
    inFixedPoint_ = false;
  }
  struct Exits {  // the innermost loop, and where a break goes (loop or switch flow entry)
    const ir::Stmt* loop = nullptr;
    std::optional<size_t> switchFlow;
  };
  void collectBlock(const std::vector<const ir::Stmt*>& body, const Exits& x) {
    for (const ir::Stmt* s : body) collect(*s, x);
  }
  void collect(const ir::Stmt& s, const Exits& x) {  // bounded: the parser limits nesting
    switch (s.kind) {
      case SK::Declare:
        grow(taint_[s.var],
             (s.value ? taint(*s.value) : 0) | (s.var->kind == VK::Var ? flow() : 0));
        return;
      case SK::CompareExchange:
        grow(taint_[s.var], kNonUniform);
        return;
      case SK::Assign:
        markAssigned(*s.target, taint(*(s.rhs ? s.rhs : s.value)));
        return;
      case SK::Increment:
      case SK::Decrement:
        markAssigned(*s.target, 0);
        return;
      case SK::Return:
        for (const ir::Stmt* loop : activeLoops_) grow(loopTaint_[loop], flow());
        return;
      case SK::Break:
        if (x.switchFlow)
          exitConstruct(*x.switchFlow);
        else if (x.loop)
          grow(loopTaint_[x.loop], flow());
        return;
      case SK::Continue:
        if (x.loop) grow(loopTaint_[x.loop], flow());
        return;
      case SK::BreakIf:
        if (x.loop) grow(loopTaint_[x.loop], taint(*s.value) | flow());
        return;
      case SK::If: {
        const Flow f(*this, taint(*s.value));
        collectBlock(s.body, x);
        collectBlock(s.elseBody, x);
        return;
      }
      case SK::Block:
        collectBlock(s.body, x);
        return;
      case SK::Switch: {
        const Flow f(*this, taint(*s.value));
        const Exits inner{x.loop, f.at};
        for (const auto& c : s.cases) collectBlock(c.body, inner);
        return;
      }
      case SK::For:
      case SK::While:
      case SK::Loop: {
        if (s.init) collect(*s.init, x);
        activeLoops_.insert(&s);
        Taint& lt = loopTaint_[&s];
        const Flow f(*this, lt);
        if (s.value) grow(lt, taint(*s.value));
        const Exits inner{&s, std::nullopt};
        collectBlock(s.body, inner);
        collectBlock(s.continuing, inner);
        if (s.update) collect(*s.update, inner);
        activeLoops_.erase(&s);
        return;
      }
      default:
        return;
    }
  }

  std::map<const ir::Function*, Summary> summaries_;
  std::map<size_t, Taint> written_;                 // the current function's Summary::written
  std::map<const ir::Variable*, Taint> taint_;      // locals and parameters
  Taint returned_ = 0, result_ = 0, required_ = 0;  // the current function's
  bool reachesBarrier_ = false;
  std::vector<Taint> flowStack_;
  std::vector<std::pair<size_t, size_t>> exits_;  // flow entries a break / continue leaves
  std::map<const ir::Stmt*, Taint> loopTaint_;
  std::set<const ir::Stmt*> activeLoops_;
  bool inFixedPoint_ = false, changed_ = false;
  const bool subgroupScope_;
};

}  // namespace

void checkUniformity(const ir::Module& module) {
  for (const bool subgroupScope : {false, true}) {
    if (subgroupScope && (!module.subgroups || module.subgroupUniformityOff)) break;
    Uniformity u(subgroupScope);
    for (const ir::Declaration& d : module.order) {
      if (d.kind == ir::Declaration::Kind::Function) u.function(*d.function);
    }
  }
}

}  // namespace wgsl::detail
