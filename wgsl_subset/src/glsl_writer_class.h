// The GLSL writer's one class (glsl_writer.h: writeGlsl), its stages in three files:
// glsl_writer.cpp (the module's declarations, its functions and calls), glsl_statements.cpp and
// glsl_expressions.cpp. Internal to writeGlsl.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "glsl_std140.h"
#include "index_bounds.h"
#include "ir.h"

namespace wgsl::detail {

class GlslWriter {
  using K = Type::K;
  using EK = ir::Expr::Kind;
  using SK = ir::Stmt::Kind;

 public:
  explicit GlslWriter(const ir::Module& m) : m_(m), bounds_(m) {}

  std::string run();

 private:
  std::string name(const ir::Variable* v) const;

  // GLSL extensions for what the module enables: f16 values, arithmetic and buffer storage;
  // the subgroup operations (glslang adds a SPIR-V capability only where one is used).
  std::string extensions() const;

  // ---- declarations ----
  void declareStruct(const std::string& structName);
  void declareGlobal(const ir::Variable& v);
  void declareResource(const ir::Variable& v);

  // Statements that give `target` (of type `t`) WGSL's zero value, which WGSL promises for every
  // variable without an initializer; GLSL leaves arrays, structs and `shared` memory undefined.
  std::string zeroFill(const std::string& target, const Type& t, const std::string& indent) const;

  // `target = source;` without writing the padding members of the structs in `t`.
  std::string copyMembers(const std::string& target, const std::string& source, const Type& t,
                          const std::string& indent) const;

  // The entry point's first statements: private arrays and structs zeroed per invocation, then
  // workgroup memory zeroed by the workgroup's invocations together (an array's elements are
  // shared out by local index, anything else is written by invocation 0) and a barrier, as Tint
  // and Dawn do when the driver does not zero it.
  std::string zeroInitPrologue() const;

  // A pointer parameter GLSL cannot pass: it names workgroup, storage or uniform memory, so the
  // function is written once per memory its callers pass (binding_), each its own GLSL function.
  static bool bound(const ir::Variable* p);
  static bool specialised(const ir::Function& f);

  // A call; a specialised callee's variant for the memory its pointer arguments name is written
  // on first use (declared in decls_, defined after the other functions).
  std::string call(const ir::Expr& e);
  std::string function(const ir::Function& f, const std::string& glslFunctionName);

  // ---- statements ----
  enum class LoopKind { Plain, WithContinuing, Switch, Continuing };
  static std::string pad(int d) { return std::string(static_cast<size_t>(d) * 2, ' '); }

  std::string block(const std::vector<const ir::Stmt*>& body, int d);
  std::string newLocal(const ir::Variable* v);

  // bounded: the parser limits statement nesting
  std::string stmt(const ir::Stmt& s, int d);

  // The loop with a continuing block that a `continue` here continues, through switches only
  // (its index in loops_), or -1. `inSwitch`: at least one switch in between.
  int continuedLoop(bool inSwitch) const;
  std::string contFlag(int loop) const { return contFlags_.at(static_cast<size_t>(loop)).first; }

  // loop { body continuing { c; break if x; } }: `continue` must reach the continuing block, so
  // the body runs inside a one-shot do-while that `continue` leaves.
  std::string loop(const ir::Stmt& s, int d);

  // A strong compare-swap whose result fills WGSL's __atomic_compare_exchange_result struct.
  std::string compareExchange(const ir::Stmt& s, const std::string& p);

  // The variables a statement (and what it holds) refers to.
  static void referenced(const ir::Expr* e, std::set<const ir::Variable*>& out);
  static void referenced(const ir::Stmt& s, std::set<const ir::Variable*>& out);

  // ---- expressions ----
  std::string args(const ir::Expr& e);

  // A read of a uniform buffer that holds a split matrix (glsl_std140.h): its piece spelled in the
  // decomposed block; null when `e` reads no such buffer. With `pre` (a pointer `let` formed
  // here), run-time indices are evaluated once into temporaries, as pointerPath does.
  std::optional<Std140::Rep> uniformRep(const ir::Expr* e, std::string* pre = nullptr,
                                        const std::string& p = {}, bool hoisted = false);

  // bounded: the parser limits expression depth
  std::string expr(const ir::Expr* e);

  // `_ = &v;` is a static use of v in WGSL, so layout "auto" keeps v's binding; the shim builds
  // that layout from the SPIR-V's uses. Read one scalar of the memory (a runtime-sized array:
  // its length, so no element need exist) into an unused local, which glslang keeps as it does
  // not optimise.
  std::string staticUse(const ir::Expr& pointer, const std::string& p);

  // bitcast between f16 vectors and 32-bit scalars or vec2s, through uint / uvec2 bits:
  // packFloat2x16 puts the first component in the low half, as WGSL's byte order does.
  std::string bitcastF16(const ir::Expr& e);

  // modf(x) / frexp(x): a helper fills WGSL's result struct from GLSL's out parameter.
  std::string modfFrexp(const ir::Expr& e);

  // Clamped so a stray index never leaves the binding (WebGPU allows any in-bounds element),
  // unless IndexBounds proved it in range.
  static std::string indexed(const std::string& base, const Type& bt, const std::string& index,
                             bool inRange = false);

  // `let p = &r;` declares nothing: each use of p spells r, with r's run-time indices evaluated
  // once, here, into temporaries (WGSL fixes the memory a pointer names where it is formed).
  std::string pointerLet(const ir::Stmt& s, const std::string& p);
  // A run-time index of a pointer `let`, evaluated once where the pointer is formed.
  std::string indexTemporary(const std::string& index, std::string& pre, const std::string& p,
                             bool hoisted);
  std::string pointerPath(const ir::Expr* e, std::string& pre, const std::string& p, bool hoisted);

  // The memory `e` names, spelled to be read, written or indexed: a buffer struct as its block
  // instance, `*p` as what p points at.
  std::string place(const ir::Expr* e);
  std::string binary(const ir::Expr& e);
  std::string construct(const ir::Expr& e);

  // The zero value of a constructible type as one expression (the resolver bounds its size).
  std::string zeroValue(const Type& t) const;

  // A storage or uniform variable of struct type is a GLSL block instance, which is no value of
  // the struct type: as a value it is rebuilt from its members, and assigned member by member.
  static bool isBufferStruct(const ir::Expr& e);
  std::string bufferStructValue(const ir::Variable& v);
  std::string atomic(const ir::Expr& e);
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

}  // namespace wgsl::detail
