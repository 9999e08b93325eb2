// WGSL's memory layout (AlignOf, SizeOf, array strides and struct member offsets, @size and
// @align included) and how the writer reproduces it in GLSL.
//
// GLSL's std430 rules give every type WGSL's alignment and size, so a struct without @size or
// @align needs nothing; where those attributes open gaps, the GLSL struct gets padding members
// (`tg_pad_N`) that fill them, each no more aligned than the WGSL struct, so std430 places every
// member at WGSL's offset and sizes the struct as WGSL does. Uniform blocks are std140, which
// rounds struct and array alignment and array strides up to 16 bytes and puts matrix columns 16
// bytes apart: glsl_std140.h decomposes matCx2<f32> and f16 matrices there, and
// std140Mismatch() names the first part of a type std140 would still lay out otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir.h"

namespace wgsl::detail {

uint32_t alignOf(const Type& t, const std::map<std::string, ir::StructLayout>& layouts);
// A runtime-sized array's is its stride (one element).
uint32_t sizeOf(const Type& t, const std::map<std::string, ir::StructLayout>& layouts);
uint32_t strideOf(const Type& array, const std::map<std::string, ir::StructLayout>& layouts);

// A member of a GLSL struct or block: WGSL member `member`, or padding (member < 0) of GLSL type
// `padding` (uint, uvec2, or uvec4 with `count` elements).
struct GlslSlot {
  int member = -1;
  std::string padding;
  uint32_t count = 0;  // padding arrays: elements (0: not an array)
};
// A GLSL struct that std430 lays out as WGSL lays out struct `name`: its slots and alignment
// (no more than WGSL's).
struct GlslStruct {
  std::vector<GlslSlot> slots;
  uint32_t align = 4;
};
GlslStruct glslStruct(const std::string& name,
                      const std::map<std::string, ir::StructMembers>& structs,
                      const std::map<std::string, ir::StructLayout>& layouts);
// std430's alignment of `t` in GLSL (a struct's: its GLSL members').
uint32_t glslAlignOf(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                     const std::map<std::string, ir::StructLayout>& layouts);

// Whether `t` holds a matCx2<f32> or an f16 matrix (decomposed in uniform blocks:
// glsl_std140.h).
bool holdsSplitMatrix(const Type& t, const std::map<std::string, ir::StructMembers>& structs);

// Whether a GLSL value of `t` holds padding members (a struct's or its members').
bool glslHasPadding(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                    const std::map<std::string, ir::StructLayout>& layouts);

// The GLSL declarations of struct `name`'s members, padding included: `indent T m[dims];` each
// followed by `sep`.
std::string glslMemberDecls(const std::string& name,
                            const std::map<std::string, ir::StructMembers>& structs,
                            const std::map<std::string, ir::StructLayout>& layouts,
                            const std::string& indent, const std::string& sep);
// A GLSL constructor of struct `name` from its WGSL members' values (GLSL code), padding zeroed.
std::string glslStructValue(const std::string& name, const std::vector<std::string>& values,
                            const std::map<std::string, ir::StructMembers>& structs,
                            const std::map<std::string, ir::StructLayout>& layouts);

// The first part of `t` that std140 lays out unlike WGSL, with why; "" when none.
std::string std140Mismatch(const Type& t, const std::map<std::string, ir::StructMembers>& structs,
                           const std::map<std::string, ir::StructLayout>& layouts);

}  // namespace wgsl::detail
