// Uniform buffers that hold a matCx2<f32> or an f16 matrix. WGSL puts such a matrix's columns 8
// bytes apart (f16: 4 for matCx2, 8 for matCx3 and matCx4); GLSL's std140 (uniform blocks) puts
// matrix columns 16 apart. So in a uniform block such a matrix is decomposed, as Tint's std140
// transform does: a matrix member becomes its C columns (`vec2 tgc0_w_m; vec2 tgc1_w_m;`, as far
// apart as in WGSL; a matCx3<f16> then a float16_t filling its last 2 bytes), an array element
// the struct `tgs_matCxR[h] { vec2 c0; ... }`, and a struct that holds either the mirror struct
// `tgs_w_S`.
// Reads convert back to WGSL's types where the value is used (`tgs_conv_*` helpers for structs
// and arrays). The resolver keeps pointers out of such buffers.
#pragma once

#include <map>
#include <set>
#include <string>

#include "ir.h"

namespace wgsl::detail {

class Std140 {
 public:
  explicit Std140(const ir::Module& m) : m_(m) {}

  // How a piece of a decomposed uniform buffer is spelled: a plain GLSL value of its WGSL type;
  // a matrix split into members `prefix + "tgc<i>_" + member`; a mirror (struct, array or
  // tgs_matCx2) at `code`; or the block's instance `code` (its members are the struct's).
  struct Rep {
    enum class Kind { Plain, Split, Mirror, Block } kind = Kind::Plain;
    std::string code, prefix, member;
  };

  bool holdsSplitMatrix(const Type& t) const;
  // The uniform block's members for a variable `glslName` of type `t`.
  std::string blockMembers(const std::string& glslName, const Type& t);
  // A member `glslMember` of type `t` within `base` (a Block or Mirror rep's code).
  Rep member(const std::string& base, const std::string& glslMember, const Type& t) const;
  // An element of an array of `elem` at `code`.
  Rep element(const std::string& code, const Type& elem) const;
  // The WGSL value of type `t` that `r` spells; may add helpers to the declarations.
  std::string value(const Rep& r, const Type& t);
  // Mirror structs and helpers added since the last call, to declare before their use.
  std::string takeDeclarations();

 private:
  std::string mirrorType(const Type& t);  // the GLSL type of t's mirror (arrays: the element's)
  std::string memberDecls(const std::string& structName, const std::string& indent,
                          const std::string& sep);
  std::string memberDecl(const std::string& glslMember, const Type& t, const std::string& indent,
                         const std::string& sep);
  std::string arrayHelper(const Type& t);

  const ir::Module& m_;
  std::set<std::string> declared_;
  std::map<std::string, std::string> arrayHelpers_;  // by the array's WGSL type
  std::string decls_;
};

}  // namespace wgsl::detail
