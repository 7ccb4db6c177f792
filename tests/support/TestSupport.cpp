#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/jobs/Backend.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>

namespace glint::test {

QString dataPath(const QString& name) { return QStringLiteral(GLINT_TEST_DATA_DIR "/") + name; }

QString fetchedPath(const QString& name) {
    const QString p = QStringLiteral(GLINT_FETCHED_DATA_DIR "/") + name;
    return QFileInfo::exists(p) ? p : QString();
}

QString samplePath(const QString& name) { return QStringLiteral(GLINT_SOURCE_DIR "/resources/samples/") + name; }

QString tempDir() {
    static std::unique_ptr<QTemporaryDir> dir = std::make_unique<QTemporaryDir>();
    return dir->path();
}

Image randomIntImage(int width, int height, int lo, int hi, std::mt19937& rng, double blankFraction) {
    std::uniform_int_distribution<int> value(lo, hi);
    std::bernoulli_distribution blank(blankFraction);
    std::vector<std::int32_t> samples(static_cast<std::size_t>(width) * height);
    std::vector<std::uint8_t> mask(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
        samples[i] = value(rng);
        mask[i] = blankFraction > 0 && blank(rng) ? 1 : 0;
    }
    Image image = Image::fromSamples<std::int32_t>(width, height, std::move(samples));
    image.setBlankMask(std::move(mask));
    return image;
}

Image randomFloatImage(int width, int height, double lo, double hi, std::mt19937& rng, double blankFraction) {
    std::uniform_real_distribution<double> value(lo, hi);
    std::bernoulli_distribution blank(blankFraction);
    std::vector<double> samples(static_cast<std::size_t>(width) * height);
    std::vector<std::uint8_t> mask(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
        samples[i] = value(rng);
        mask[i] = blankFraction > 0 && blank(rng) ? 1 : 0;
    }
    Image image = Image::fromSamples<double>(width, height, std::move(samples));
    image.setBlankMask(std::move(mask));
    image.updateIntegerValued();
    return image;
}

CliResult runCli(const QStringList& args, int timeoutMs) {
    QProcess process;
    // GLINT_CLI overrides the build-tree path (tests copied to another machine with their glint-cli).
    const QString cli = qEnvironmentVariableIsSet("GLINT_CLI") ? qEnvironmentVariable("GLINT_CLI")
                                                                : QStringLiteral(GLINT_CLI_PATH);
    process.start(cli, args);
    CliResult result;
    if (!process.waitForStarted(10000)) return result;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

bool cudaUsable() {
    initBackends();
    return cudaDevice().usable;
}

} // namespace glint::test

namespace glint::test {

CancelInsideRun::CancelInsideRun(JobControl& job, double after) {
    job.setProgressObserver([this, after](JobControl& j, double fraction) {
        if (requested_.load() || !(fraction > after && fraction < 1.0)) return;
        at_ = std::chrono::steady_clock::now();
        progressAt_.store(fraction);
        requested_.store(true); // publishes at_
        j.requestCancel();
    });
}

double CancelInsideRun::msSinceRequest() const {
    if (!requested_.load()) return -1.0;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - at_).count();
}

} // namespace glint::test
