// The two ways a sample's data can fail, kept apart because they exit differently: data that is
// not installed (exit 2, naming the Debian package to install) and data that is there but wrong
// (exit 1, naming the file and, for binary files, the byte offset).
#pragma once

#include <stdexcept>
#include <string>

namespace tg_samples {

class MissingData : public std::runtime_error {
 public:
  MissingData(const std::string& what, std::string package)
      : std::runtime_error(what + " not found: install the Debian package '" + package +
                           "' (sudo apt-get install " + package + ")"),
        package_(std::move(package)) {}
  const std::string& package() const { return package_; }

 private:
  std::string package_;
};

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tg_samples
