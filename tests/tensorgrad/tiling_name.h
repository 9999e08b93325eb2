// A forced GemmTiling as a gtest parameter name: its describe(), alphanumerics and underscores.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "../../tensorgrad/src/ops/matmul_fast.h"

inline std::string tilingName(const testing::TestParamInfo<tg::detail::GemmTiling>& param) {
  std::string name = param.param.describe();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}
