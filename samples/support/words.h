// Word lists from Debian packages (wamerican's /usr/share/dict/words, ...): one word a line,
// kept when it is plain lowercase a–z (no capitals — proper nouns —, apostrophes or accents), or
// with WordCase::Capitalised when it is one capital and then lowercase a–z (proper names such as
// "Abigail", returned lowercased), and of an allowed length; duplicates dropped, file order kept.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tg_samples {

inline constexpr const char* kWordsFile = "/usr/share/dict/words";

enum class WordCase { Lower, Capitalised };

// Throws MissingData naming `package` when `path` does not exist, DataError when no word passes.
std::vector<std::string> readWords(const std::filesystem::path& path, const std::string& package, size_t minLen,
                                   size_t maxLen, WordCase kind = WordCase::Lower);

// 'a'..'z' → 1..26; '.' (0) begins, ends and pads a name.
int32_t letterToken(char c);
char tokenLetter(int32_t t);

}  // namespace tg_samples
