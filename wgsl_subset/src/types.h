// WGSL types as the resolver sees them, and their GLSL spelling.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace wgsl::detail {

// The GLSL spelling of a WGSL name: `w_` + name, so no WGSL name is a GLSL keyword; names GLSL
// cannot spell (non-ASCII, '__' inside, a leading or trailing '_', longer than glslang's token
// limit) become `wx_<hash>`.
std::string glslName(const std::string& name);

struct Type;

// C for a matrix type's name (`mat3x2`, and `mat3x2f` / `mat3x2h` when `shorthand`), else 0.
int matrixColumns(const std::string& name, bool shorthand = true);

// The literal spelling of a folded scalar constant of type `t` (bool, integer or float, finite),
// the same in WGSL and GLSL: `true`, `7`, `(-7)`, `(-2147483647 - 1)`, `7u`, `0.5`, `(-1.0)`.
std::string literalText(double v, const Type& t);

struct Type {
  enum class K {
    Void,
    Bool,
    I32,
    U32,
    F32,
    F16,
    AbstractInt,
    AbstractFloat,
    Vec,
    Array,
    Atomic,
    Struct,
    Ptr,
    Mat
  } k = K::Void;
  // vector width; array count (0: runtime-sized); pointer: 1 if read_write; matrix: columns
  int n = 0;
  // vector/array/atomic element; a pointer's store type; a matrix's column (vecR<f32>)
  std::shared_ptr<const Type> elem;
  // struct name; a pointer's address space; an override-sized array's override (its `n` is then
  // the override's default, or 1 without one: the length the writer's default and the storage
  // count assume)
  std::string name;

  static Type scalar(K k) { return Type{k, 0, nullptr, {}}; }
  static Type vec(int n, const Type& e) { return Type{K::Vec, n, std::make_shared<Type>(e), {}}; }
  static Type ptr(const std::string& space, const Type& e, bool readWrite) {
    return Type{K::Ptr, readWrite ? 1 : 0, std::make_shared<Type>(e), space};
  }
  // matCxR<T> (T f32 or f16): C columns of vecR<T>.
  static Type mat(int columns, int rows, K element = K::F32) {
    return Type{K::Mat, columns, std::make_shared<Type>(vec(rows, scalar(element))), {}};
  }
  int rows() const { return elem->n; }  // of a matrix
  static Type array(const Type& e, int n) {
    return Type{K::Array, n, std::make_shared<Type>(e), {}};
  }

  bool isScalar() const {
    return k == K::Bool || k == K::I32 || k == K::U32 || k == K::F32 || k == K::F16 || isAbstract();
  }
  bool isAbstract() const { return k == K::AbstractInt || k == K::AbstractFloat; }
  // array<T, N>, N an override: its length is set at pipeline creation.
  bool overrideSized() const { return k == K::Array && !name.empty(); }
  bool isInteger() const { return k == K::I32 || k == K::U32 || k == K::AbstractInt; }
  bool isFloat() const { return k == K::F32 || k == K::F16 || k == K::AbstractFloat; }
  bool isNumeric() const { return isInteger() || isFloat(); }
  // The scalar of a scalar or vector (a matrix is neither: its own type, which no scalar rule
  // accepts).
  const Type& scalarType() const { return k == K::Vec ? *elem : *this; }
  bool operator==(const Type& o) const;
  std::string wgsl() const;  // for messages
  std::string glsl() const;  // the GLSL type (arrays: element type only)
  int byteSize() const;      // WGSL's SizeOf: 32-bit scalars, vectors, matrices, fixed arrays
};

// `v` rounded to f16 (IEEE binary16, round to nearest even, once from the double); beyond the
// largest finite f16 it is an infinity, as IEEE rounding makes it.
double roundToF16(double v);
// The IEEE binary16 bits of `v`, an f16 value (roundToF16(v) == v).
uint16_t f16Bits(double v);
// `v` rounded to the float type `k` (F32, F16; AbstractFloat: unchanged).
double roundToFloat(double v, Type::K k);

}  // namespace wgsl::detail
