// WGSL's subgroup built-in functions (`enable subgroups;`): which names they are, which results
// are subgroup-uniform, which parameters must be, and their GLSL (GL_KHR_shader_subgroup_*).
// The resolver types them (resolve_subgroup.cpp), the validator checks their uniformity, the
// writer spells them; each reads this one table.
#pragma once

#include <string>

namespace wgsl::detail {

struct SubgroupFunction {
  enum class Args {
    None,            // subgroupElect()
    Bool,            // subgroupAll/Any/Ballot(bool)
    Numeric,         // (e: T), T f32, f16, i32, u32 or a vector of them
    Integer,         // (e: T), T i32, u32 or a vector of them
    NumericConstId,  // (e: T, id: const i32/u32 below `idLimit`)
    NumericId,       // (e: T, id: i32/u32)
    NumericU32,      // (e: T, delta/mask: u32, subgroup-uniform)
  } args = Args::Numeric;
  enum class Result { Same, Bool, Vec4U32 } result = Result::Same;
  const char* glsl = "";
  bool uniformResult = false;  // uniform at subgroup scope (reductions, votes, broadcasts)
  unsigned idLimit = 128;      // subgroupBroadcast: 128 (WGSL's largest subgroup); quadBroadcast: 4
};

// The function `name` names, or null.
const SubgroupFunction* subgroupFunction(const std::string& name);

}  // namespace wgsl::detail
