// What an export writes: every file's bytes made first (so that a wrong choice writes nothing), then each
// file written atomically. ResultExport and TimingExport write through it.
#pragma once

#include "core/util/AtomicFile.h"

#include <QString>
#include <QStringList>

#include <string>
#include <utility>
#include <vector>

namespace glint::ui {

// (path, bytes) in the order they are written.
using FileOutputs = std::vector<std::pair<QString, std::string>>;

// Writes each file atomically, in order, and returns their paths. Throws OutputError at the first that
// cannot be written.
inline QStringList writeOutputs(const FileOutputs& outputs) {
    QStringList written;
    for (const auto& [path, bytes] : outputs) {
        glint::writeFileAtomically(path.toStdString(), bytes);
        written << path;
    }
    return written;
}

} // namespace glint::ui
