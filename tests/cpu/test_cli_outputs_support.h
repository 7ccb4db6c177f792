// Helpers of the glint-cli output suites (test_cli_output_targets, test_cli_overlay_orientation,
// test_cli_limits): text files written in a fresh folder per test function, and a small input matrix.
#pragma once

#include "tests/support/TestSupport.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

namespace glint::test::clioutputs {

inline QString writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    f.open(QIODevice::WriteOnly | QIODevice::Truncate);
    f.write(text);
    return path;
}

// A fresh folder per test function.
inline QString freshDir(const QString& name) {
    const QString dir = test::tempDir() + "/" + name;
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    return dir;
}

// A 4x3 integer matrix with one bright corner.
inline QString matrix(const QString& dir) {
    return writeText(dir + "/m.csv", "1,2,3,4\n5,60,70,8\n9,10,110,12\n");
}

// A fresh folder (freshDir) with the matrix in it (in).
struct MatrixDir {
    QString dir;
    QString in;
};
inline MatrixDir freshMatrixDir(const QString& name) {
    const QString dir = freshDir(name);
    return {dir, matrix(dir)};
}

} // namespace glint::test::clioutputs
