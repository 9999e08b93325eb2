// The host: links no tensorgrad library; loads the backend plugin by path with dlopen (its
// NEEDED entries bring in the installed shared libraries) and calls its one function.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host PLUGIN.so\n");
    return 2;
  }
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  using Train = int (*)(char*, size_t);
  auto train = reinterpret_cast<Train>(dlsym(plugin, "tg_backend_train"));
  if (!train) {
    std::fprintf(stderr, "dlsym: %s\n", dlerror());
    return 1;
  }
  char report[4096];
  const int status = train(report, sizeof report);
  std::fputs(report, stdout);
  return status;
}
