// Helpers shared by the test suites: paths to test data, random images, running glint-cli.
#pragma once

#include "io/Image.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace glint::test {

// Committed test data (tests/data) and files fetched by the real_data fixture.
QString dataPath(const QString& name);
QString fetchedPath(const QString& name);   // empty when the fixture could not provide it
QString samplePath(const QString& name);    // resources/samples
// A fresh temporary folder, removed when the test process exits.
QString tempDir();

// Random images of a given shape. Values uniform in [lo, hi]; blankFraction of pixels marked blank.
Image randomIntImage(int width, int height, int lo, int hi, std::mt19937& rng, double blankFraction = 0.0);
Image randomFloatImage(int width, int height, double lo, double hi, std::mt19937& rng, double blankFraction = 0.0);

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};
// Runs glint-cli with the arguments and waits (up to timeoutMs).
CliResult runCli(const QStringList& args, int timeoutMs = 120000);

// Whether the CUDA backends can run here (initBackends() is called first).
bool cudaUsable();

} // namespace glint::test
