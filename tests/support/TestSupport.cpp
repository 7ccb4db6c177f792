#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>

#include <fstream>
#include <iterator>
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

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
        QTest::qFail(qPrintable("cannot write " + path), __FILE__, __LINE__);
}

QString writeTempFile(const QString& name, const QByteArray& bytes) {
    const QString path = tempDir() + "/" + name;
    writeFile(path, bytes);
    return path;
}

std::string readFileString(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll().toStdString();
}

Image randomImageOfKind(const QString& kind, int width, int height, std::mt19937& rng) {
    if (kind == "int") return randomIntImage(width, height, -20, 20, rng);
    if (kind == "float") return randomFloatImage(width, height, -1.0, 1.0, rng);
    if (kind == "negative") return randomIntImage(width, height, -9, -1, rng);
    if (kind == "equal") return randomIntImage(width, height, 3, 3, rng);
    if (kind == "blanks") return randomIntImage(width, height, -10, 12, rng, 0.2);
    if (kind == "big") return randomIntImage(width, height, -1000000000, 1000000000, rng);
    return {};
}

Image intImage(int width, int height, std::vector<std::int32_t> samples) {
    return Image::fromSamples<std::int32_t>(width, height, std::move(samples));
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

Image randomIntImage(int width, int height, int lo, int hi, Seed seed, double blankFraction) {
    std::mt19937 rng(seed.value);
    return randomIntImage(width, height, lo, hi, rng, blankFraction);
}

Image randomFloatImage(int width, int height, double lo, double hi, Seed seed, double blankFraction) {
    std::mt19937 rng(seed.value);
    return randomFloatImage(width, height, lo, hi, rng, blankFraction);
}

QString cliPath() {
    return qEnvironmentVariableIsSet("GLINT_CLI") ? qEnvironmentVariable("GLINT_CLI") : QStringLiteral(GLINT_CLI_PATH);
}

CliResult runProcess(QProcess& process, const QString& program, const QStringList& args, int timeoutMs) {
    process.start(program, args);
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

CliResult runCli(const QStringList& args, int timeoutMs) {
    QProcess process;
    return runProcess(process, cliPath(), args, timeoutMs);
}

CliResult runCliWithEnv(const QStringList& args, const QString& variable, const QString& value) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(variable, value);
    process.setProcessEnvironment(env);
    return runProcess(process, cliPath(), args);
}

bool oneErrorLine(const QByteArray& err) { return err.endsWith('\n') && err.count('\n') == 1; }

bool libraryMapped(const std::string& name) {
    std::ifstream maps("/proc/self/maps");
    const std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
    return text.find(name) != std::string::npos;
}

QJsonObject jsonOf(const CliResult& result) { return QJsonDocument::fromJson(result.out).object(); }

QJsonObject runCliJson(const QStringList& args, int expectedExit) {
    const CliResult r = runCli(args);
    if (r.exitCode != expectedExit)
        QTest::qFail(qPrintable(QString("glint-cli %1: exit %2, expected %3; stderr: %4")
                                    .arg(args.join(' '))
                                    .arg(r.exitCode)
                                    .arg(expectedExit)
                                    .arg(QString::fromUtf8(r.err))),
                     __FILE__, __LINE__);
    else if (!QJsonDocument::fromJson(r.out).isObject())
        QTest::qFail(qPrintable("glint-cli " + args.join(' ') + ": no JSON object on stdout"), __FILE__, __LINE__);
    return jsonOf(r);
}

void checkCancelInsideRun(const std::function<void(JobControl&)>& work, const QString& what) {
    JobControl job;
    CancelInsideRun cancel(job);
    bool cancelled = false;
    try {
        work(job);
    } catch (const Cancelled&) {
        cancelled = true;
    }
    const double ms = cancel.msSinceRequest();
    QVERIFY2(cancel.requested(), qPrintable(what + ": the run reported no progress before it ended"));
    QVERIFY2(cancelled, qPrintable(what + ": the run finished although a cancel was requested inside it"));
    qInfo("%s: cancel latency %.2f ms", qPrintable(what), ms);
    QVERIFY2(ms < 1000, qPrintable(what + QString(": cancel took %1 ms").arg(ms)));
}

bool cudaUsable() {
    initBackends();
    return cudaDevice().usable;
}

void addBackendColumn() { QTest::addColumn<int>("backend"); }

QTestData& newBackendRow(Backend backend, const QString& tag) {
    const QString name = tag.isEmpty() ? QString(backendName(backend)) : QString("%1: %2").arg(backendName(backend), tag);
    return QTest::newRow(qPrintable(name)) << static_cast<int>(backend);
}

void addBackendRows(std::initializer_list<Backend> backends) {
    addBackendColumn();
    for (Backend b : backends) newBackendRow(b);
}

void addBackendKindRows(std::initializer_list<Backend> backends, std::initializer_list<const char*> kinds) {
    addBackendColumn();
    QTest::addColumn<QString>("kind");
    for (Backend b : backends)
        for (const char* k : kinds) newBackendRow(b, k) << QString(k);
}

void addBoolRows(const char* column, const char* falseTag, const char* trueTag) {
    QTest::addColumn<bool>(column);
    QTest::newRow(falseTag) << false;
    QTest::newRow(trueTag) << true;
}

void addStringRows(const char* column, std::initializer_list<std::pair<const char*, const char*>> rows) {
    QTest::addColumn<QString>(column);
    for (const auto& [tag, value] : rows) QTest::newRow(tag) << QString::fromUtf8(value);
}

void addSizedCaseColumns() {
    addBackendColumn();
    columns<QString, int, int, int>({"kind", "width", "height", "k"});
}

SizedCase fetchSizedCase() {
    QFETCH(QString, kind);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, k);
    return {kind, width, height, k};
}

Backend fetchBackend() { return static_cast<Backend>(*static_cast<int*>(QTest::qData("backend", QMetaType::Int))); }

QString unavailableReason(Backend backend) {
    if (backend != Backend::Cuda) return {};
    initBackends();
    const CudaDeviceInfo& device = cudaDevice();
    if (device.usable) return {};
    return QString("no usable CUDA device: %1")
        .arg(device.compiled ? QString::fromStdString(device.reason) : QString("this build has no CUDA backends"));
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
