// Every file Glint writes goes through here: the bytes go to a temporary file beside the target, are
// flushed to disk, and only then renamed over it. A crash or a full disk never leaves a truncated file.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace glint {

// writer fills the stream; any failure (exception, stream error, short write, rename) removes the
// temporary file and throws OutputError naming the target.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer);
void writeFileAtomically(const std::string& path, const std::string& bytes);

} // namespace glint
