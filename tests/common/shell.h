// Runs a command through the shell, as a user would, for tests of the command-line tools.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace test_support {

struct Shell {
  int status = -1;  // the exit status; -1 when the command did not exit normally
  std::string out;  // stdout and stderr together
};

inline Shell shell(const std::string& cmd) {
  Shell r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int raw = ::pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

}  // namespace test_support
