#include "words.h"

#include <fstream>
#include <unordered_set>

#include "errors.h"

namespace tg_samples {

std::vector<std::string> readWords(const std::filesystem::path& path, const std::string& package, size_t minLen,
                                   size_t maxLen, WordCase kind) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw MissingData("word list " + path.string(), package);
  std::ifstream f(path);
  if (!f) throw DataError(path.string() + ": cannot open");
  std::vector<std::string> words;
  std::unordered_set<std::string> seen;
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() < minLen || line.size() > maxLen) continue;
    bool plain = true;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (i == 0 && kind == WordCase::Capitalised) plain = c >= 'A' && c <= 'Z';
      else plain = plain && c >= 'a' && c <= 'z';
    }
    if (!plain) continue;
    if (kind == WordCase::Capitalised) line[0] = static_cast<char>(line[0] - 'A' + 'a');
    if (seen.insert(line).second) words.push_back(line);
  }
  if (f.bad()) throw DataError(path.string() + ": read error");
  if (words.empty()) {
    throw DataError(path.string() + (kind == WordCase::Lower ? ": no lowercase a-z words of " : ": no capitalised A-Z a-z words of ") + std::to_string(minLen) + " to " +
                    std::to_string(maxLen) + " letters");
  }
  return words;
}

int32_t letterToken(char c) { return c >= 'a' && c <= 'z' ? c - 'a' + 1 : 0; }
char tokenLetter(int32_t t) { return t >= 1 && t <= 26 ? static_cast<char>('a' + t - 1) : '.'; }

}  // namespace tg_samples
