// Helpers shared by the test suites: paths to test data, random images, files in a temporary folder,
// running glint-cli, cancelling from inside a run, and the backend rows of the suites that run one set of
// checks on every backend (reference, cpu, cuda).
#pragma once

#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "cuda/Backends.h"

#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

// In a test that needs a file fetched by the real_data fixture: its path in `var`, or a skip naming it.
#define GLINT_REAL_FILE(var, name)                                                                    \
    const QString var = ::glint::test::fetchedPath(name);                                             \
    if (var.isEmpty()) QSKIP(qPrintable(QString("%1 was not fetched by the real_data fixture").arg(name)))

namespace glint::test {

// A data function's columns in one call, types in order: columns<QString, int>({"name", "count"}).
template <class... T>
void columns(const char* const (&names)[sizeof...(T)]) {
    std::size_t i = 0;
    (QTest::addColumn<T>(names[i++]), ...);
}

// Committed test data (tests/data) and files fetched by the real_data fixture.
QString dataPath(const QString& name);
QString fetchedPath(const QString& name);   // empty when the fixture could not provide it
QString samplePath(const QString& name);    // resources/samples
// A pixel of a real file with its expected value.
struct KnownPixel {
    int x, y;
    double value;
};
// A fresh temporary folder, removed when the test process exits.
QString tempDir();
// Writes `bytes` to tempDir()/name (the test fails when it cannot) and returns the path.
QString writeTempFile(const QString& name, const QByteArray& bytes);
// Writes `bytes` to path, replacing what is there (the test fails when it cannot).
void writeFile(const QString& path, const QByteArray& bytes);
// A file's bytes (empty when it cannot be read).
std::string readFileString(const QString& path);

// Random images of a given shape. Values uniform in [lo, hi]; blankFraction of pixels marked blank.
Image randomIntImage(int width, int height, int lo, int hi, std::mt19937& rng, double blankFraction = 0.0);
Image randomFloatImage(int width, int height, double lo, double hi, std::mt19937& rng, double blankFraction = 0.0);
// The same drawn from a generator of their own, std::mt19937(seed.value): for an image that is a test's only draw.
struct Seed {
    std::uint32_t value;
};
Image randomIntImage(int width, int height, int lo, int hi, Seed seed, double blankFraction = 0.0);
Image randomFloatImage(int width, int height, double lo, double hi, Seed seed, double blankFraction = 0.0);
// A random image of one of the brute-force kinds: "int" (-20..20), "float" (-1..1), "negative" (-9..-1),
// "equal" (all 3), "blanks" (-10..12, a fifth blank), "big" (+-1e9); an empty image for any other kind.
Image randomImageOfKind(const QString& kind, int width, int height, std::mt19937& rng);
// An int32 image from its samples, row by row.
Image intImage(int width, int height, std::vector<std::int32_t> samples);

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};
// glint-cli of the build tree, or $GLINT_CLI (tests copied to another machine with their glint-cli).
QString cliPath();
// Starts `process` (set up by the caller: environment, child modifier) on the program and waits (up to
// timeoutMs); exit code -1 when it did not start, crashed or timed out (it is killed then).
CliResult runProcess(QProcess& process, const QString& program, const QStringList& args, int timeoutMs = 120000);
// Runs glint-cli with the arguments and waits (up to timeoutMs).
CliResult runCli(const QStringList& args, int timeoutMs = 120000);
// The same with one environment variable set (to value) for the child.
CliResult runCliWithEnv(const QStringList& args, const QString& variable, const QString& value);
// Whether standard error is one line, ending in a newline (how glint-cli reports every error).
bool oneErrorLine(const QByteArray& err);
// Whether this process has a library whose file name contains `name` mapped (/proc/self/maps).
bool libraryMapped(const std::string& name);
// Its standard output as a JSON object (empty when it is none).
QJsonObject jsonOf(const CliResult& result);
// Runs glint-cli, requires the exit code (the test fails otherwise, printing stderr) and a JSON object on
// stdout, and returns that object.
QJsonObject runCliJson(const QStringList& args, int expectedExit = 0);

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

// Runs `work` under a job that CancelInsideRun cancels at its first progress report, and requires that it
// stopped with Cancelled within a second of the request (`what` names the case in failure messages).
void checkCancelInsideRun(const std::function<void(JobControl&)>& work, const QString& what = {});

// Whether the CUDA backends can run here (initBackends() is called first).
bool cudaUsable();

// Suites that run the same checks on every backend: a column "backend" (added first, so that a row's
// backend is streamed first) and one row per backend, tagged "<backend>" or "<backend>: <tag>".
// Rows of the cuda backend skip, with the reason, where no CUDA device is usable.
inline constexpr Backend allBackends[] = {Backend::Reference, Backend::Cpu, Backend::Cuda};
void addBackendColumn();
QTestData& newBackendRow(Backend backend, const QString& tag = {});
// The backend column alone, with one row per backend.
void addBackendRows(std::initializer_list<Backend> backends = {Backend::Reference, Backend::Cpu, Backend::Cuda});
// The backend column and a QString column "kind", with one row per backend and kind (tagged "<backend>: <kind>").
void addBackendKindRows(std::initializer_list<Backend> backends, std::initializer_list<const char*> kinds);
Backend fetchBackend();
// Empty where the backend can run here, else why not.
QString unavailableReason(Backend backend);

// A data function's one bool column and its two rows: `falseTag` (false), then `trueTag` (true).
void addBoolRows(const char* column, const char* falseTag, const char* trueTag);
// A data function's one QString column and its rows, each {tag, value}.
void addStringRows(const char* column, std::initializer_list<std::pair<const char*, const char*>> rows);

// The size tables of the searches: the backend column, then "kind" (what image to make), "width", "height" and
// "k"; and a row's values.
struct SizedCase {
    QString kind;
    int width = 0;
    int height = 0;
    int k = 0;
};
void addSizedCaseColumns();
SizedCase fetchSizedCase();

} // namespace glint::test

// In a test function with a backend column: the row's backend in `var`, or the row skips.
#define GLINT_FETCH_BACKEND(var)                                                                    \
    const ::glint::Backend var = ::glint::test::fetchBackend();                                    \
    if (const QString glint_why_ = ::glint::test::unavailableReason(var); !glint_why_.isEmpty())    \
    QSKIP(qPrintable(glint_why_))

// The main of a suite that runs the algorithms: QTEST_GUILESS_MAIN with every backend registered first.
#define GLINT_BACKEND_TEST_MAIN(TestObject) \
    QTEST_MAIN_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication)::glint::initBackends();)

// A check of the CUDA backend alone: it skips, with the reason, where no CUDA device is usable.
#define GLINT_REQUIRE_CUDA()                                                                               \
    if (const QString glint_why_ = ::glint::test::unavailableReason(::glint::Backend::Cuda); !glint_why_.isEmpty()) \
    QSKIP(qPrintable(glint_why_))

namespace glint::test {

} // namespace glint::test
