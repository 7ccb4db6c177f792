// Text from files and libraries made fit for one line of a terminal or a log: control bytes and broken
// UTF-8 escaped, long text cut. Every error message of glint-cli goes through printableMessage().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace glint {

// Bytes that are not printable (C0/C1 controls, DEL, invalid UTF-8) become \xNN; tab, CR and LF become
// a space; valid UTF-8 (paths with accents, "×", "…") is kept. Longer than maxLen bytes: the middle is
// cut and replaced by " … ", keeping the start (what failed) and the end (why).
std::string printableMessage(std::string_view text, std::size_t maxLen = 300);

// A token quoted for a message: 'abc', or for a long one its start and its size:
// 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…' (1048576 bytes). Escaped like printableMessage.
std::string quotedToken(std::string_view token, std::size_t maxLen = 40);

} // namespace glint
