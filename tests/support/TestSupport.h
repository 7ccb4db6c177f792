// Helpers shared by the test suites: paths to test data, random images, running glint-cli.
#pragma once

#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <chrono>
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

// Cancels a job from inside its run, at its first progress report strictly between `after` and 1, and
// records when. The job has begun and has work left at that point however fast the machine is, so a
// test can require that the cancel took effect (Cancelled thrown) without racing a timer.
class CancelInsideRun {
public:
    explicit CancelInsideRun(JobControl& job, double after = 0.0);
    bool requested() const { return requested_.load(); }
    double msSinceRequest() const; // from the request until now
    double progressAtRequest() const { return progressAt_.load(); }

private:
    std::atomic<bool> requested_{false};
    std::atomic<double> progressAt_{0.0};
    std::chrono::steady_clock::time_point at_{};
};

// Whether the CUDA backends can run here (initBackends() is called first).
bool cudaUsable();

} // namespace glint::test
