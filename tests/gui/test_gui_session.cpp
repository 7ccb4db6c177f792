// Sessions and the autosave: a session with every module's results (brightest runs and a sweep with ROI and
// exclusions, a trace, region statistics, a common component with image B), display settings, layer
// visibility and colours, zoom and centre, saved and opened again (in the same window after another image,
// and in a new window) gives the same document and the same exported picture, without re-running; a
// missing image or a damaged file is a message and changes nothing; images moved with the session are
// found beside it. The autosave is offered after a crash — a window abandoned without closing, and a real
// glint process killed — restored on "restore", removed on "discard", and not offered after a clean exit.
#include "tests/gui/test_gui_export_support.h"

#include "ui/canvas/ImageCanvas.h"
#include "ui/session/Autosave.h"

#include <QAbstractButton>
#include <QJsonDocument>
#include <QMessageBox>
#include <QProcess>
#include <QStatusBar>

#include <functional>
#include <memory>
#include <utility>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::exports;

namespace {

// The document without the view (its centre goes through floating point) and the view on its own.
QJsonObject withoutView(QJsonObject doc) {
    doc.remove(QStringLiteral("view"));
    return doc;
}

// Where two documents differ first: the path of the value and both sides.
QString describeDifference(const QJsonValue& a, const QJsonValue& b, const QString& path = {}) {
    if (a.type() != b.type()) return QStringLiteral("%1: a %2, then a %3").arg(path).arg(a.type()).arg(b.type());
    if (a.isObject()) {
        const QJsonObject oa = a.toObject(), ob = b.toObject();
        for (auto it = oa.begin(); it != oa.end(); ++it) {
            if (!ob.contains(it.key())) return QStringLiteral("%1/%2: missing after").arg(path, it.key());
            const QString d = describeDifference(it.value(), ob.value(it.key()), path + QLatin1Char('/') + it.key());
            if (!d.isEmpty()) return d;
        }
        for (auto it = ob.begin(); it != ob.end(); ++it)
            if (!oa.contains(it.key())) return QStringLiteral("%1/%2: only after").arg(path, it.key());
        return {};
    }
    if (a.isArray()) {
        const QJsonArray xa = a.toArray(), xb = b.toArray();
        if (xa.size() != xb.size()) return QStringLiteral("%1: %2 items, then %3").arg(path).arg(xa.size()).arg(xb.size());
        for (qsizetype i = 0; i < xa.size(); ++i) {
            const QString d = describeDifference(xa[i], xb[i], path + QStringLiteral("[%1]").arg(i));
            if (!d.isEmpty()) return d;
        }
        return {};
    }
    if (a == b) return {};
    const auto text = [](const QJsonValue& v) { return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)); };
    return QStringLiteral("%1: %2, then %3").arg(path, text(a), text(b));
}

bool sameView(const QJsonObject& a, const QJsonObject& b) {
    const QJsonObject va = a[QStringLiteral("view")].toObject(), vb = b[QStringLiteral("view")].toObject();
    const QJsonArray ca = va[QStringLiteral("centre")].toArray(), cb = vb[QStringLiteral("centre")].toArray();
    return va[QStringLiteral("fit")] == vb[QStringLiteral("fit")] &&
           std::abs(va[QStringLiteral("scale")].toDouble() - vb[QStringLiteral("scale")].toDouble()) < 1e-9 &&
           std::abs(ca[0].toDouble() - cb[0].toDouble()) < 1e-6 && std::abs(ca[1].toDouble() - cb[1].toDouble()) < 1e-6;
}

// Opens image A and runs brightest (K 1, mean, cpu) and then common with image B on it.
bool openAndRunBrightestAndCommon(MainWindow& window, const QString& a, const QString& b) {
    QString message;
    return openAndWait(window, a) && runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message) &&
           runCommon(window, b, 0.0);
}

// Waits for the end of an open already under way (its signals may come later only).
bool waitOpened(MainWindow& window, QString* failure, const std::function<void()>& start = {}) {
    QSignalSpy opened(window.sessions(), &SessionManager::opened);
    QSignalSpy failed(window.sessions(), &SessionManager::failed);
    if (start) start(); // a file that cannot be read fails at once
    QElapsedTimer clock;
    clock.start();
    while (opened.isEmpty() && failed.isEmpty() && clock.elapsed() < 30000)
        QTest::qWait(20);
    if (!failed.isEmpty()) *failure = failed.first().at(1).toString();
    return !opened.isEmpty();
}

// Everything drawn: the image frame and B's, ready.
bool openSession(MainWindow& window, const QString& path, QString* failure) {
    return waitOpened(window, failure, [&] { window.sessions()->open(path); });
}

bool waitDrawn(MainWindow& window) {
    QElapsedTimer clock;
    clock.start();
    auto* common = test::findModule<CommonComponentModule>(window);
    while (clock.elapsed() < 30000) {
        if (test::imageShown(window.context()) && (!common->secondImage() || common->isSecondImageShown())) return true;
        QTest::qWait(20);
    }
    return false;
}

QImage picture(MainWindow& window) {
    return ViewPicture(window.context(), {1.0}).toImage();
}

QStringList autosaveFiles(const QString& dir) {
    return QDir(dir).entryList({QStringLiteral("session-*")}, QDir::Files, QDir::Name);
}

} // namespace

class TestGuiSession : public QObject {
    Q_OBJECT

    QString dir_, pathA_, pathB_;

    // A window with every module's results, display settings, layer changes and a zoomed view.
    void buildSession(MainWindow& window) {
        QVERIFY(openAndWait(window, pathA_));
        AppContext& ctx = window.context();
        glint::DisplaySettings display = ctx.displaySettings();
        display.scale = glint::DisplayScale::Sqrt;
        display.colormap = glint::Colormap::Heat;
        ctx.setDisplaySettings(display);
        ctx.setManualLimits(5.0, 210.0);

        auto* b = test::findModule<BrightestModule>(window);
        b->setRoi(QRect(4, 3, 150, 110));
        b->addExclusionRectangle(QRect(100, 80, 20, 15));
        b->addExclusionPolygon(QPolygonF({QPointF(10, 10), QPointF(40, 12), QPointF(20, 35)}));
        QString message;
        QVERIFY2(runBrightest(window, 2, QStringLiteral("mean"), QStringLiteral("cpu"), &message), qPrintable(message));
        b->panel()->sweepEdit()->setText(QStringLiteral("mean, p90"));
        QVERIFY2(brightest::runAndWait(
                     b, [&] { b->runSweep(); }, &message),
                 qPrintable(message));
        b->panel()->kBox()->setValue(7); // panel state that no run used
        brightest::setPivot(b->panel(), QStringLiteral("p97.5"));

        QVERIFY(runTrace(window, {QPointF(8.5, 100.25), QPointF(80, 60), QPointF(150.75, 20)}));
        QVERIFY(test::findModule<RegionStatisticsModule>(window)->measure(QRect(20, 30, 40, 25)));
        QVERIFY(waitIdle(window));
        QVERIFY(runCommon(window, pathB_, 0.0));
        test::findModule<CommonComponentModule>(window)->setView(CommonComponentModule::View::Blend);
        test::findModule<CommonComponentModule>(window)->setBlendOpacity(0.3);

        test::findModule<RegionStatisticsModule>(window)->layer()->setVisible(false);
        test::findModule<TraceModule>(window)->layer()->setColour(QColor(10, 200, 30));
        LayerStack* layers = ctx.layers();
        layers->move(test::findModule<TraceModule>(window)->layer(), 0);
        ImageCanvas* canvas = window.canvas();
        canvas->setScaleAt(2.5, QRectF(canvas->rect()).center());
        canvas->centerOn(QPointF(60.25, 40.5));
        QVERIFY(waitDrawn(window));
    }

private slots:
    void initTestCase() {
        dir_ = test::tempDir();
        const Image a = scene(160, 120, 31);
        std::vector<std::int32_t> crop;
        for (int y = 20; y < 90; ++y)
            for (int x = 30; x < 120; ++x)
                crop.push_back(static_cast<std::int32_t>(a.value(x, y)));
        pathA_ = brightest::writeMatrix(a, QStringLiteral("session-a.csv"));
        pathB_ = brightest::writeMatrix(Image::fromSamples<std::int32_t>(90, 70, std::move(crop)),
                                        QStringLiteral("session-b.csv"));
        QVERIFY(!pathA_.isEmpty() && !pathB_.isEmpty());
    }

    // Save, show another image, open: the same document, the same picture, the same result sets; then the
    // same in a new window. Nothing is run again (the timing log has only the saved runs).
    void roundTrip() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        buildSession(window);
        if (QTest::currentTestFailed()) return;
        const QString path = QDir(dir_).filePath(QStringLiteral("round.glint.json"));
        window.sessions()->save(path);
        const QJsonObject saved = window.sessions()->capture();
        const QImage before = picture(window);
        const int resultSets = window.resultsDock()->resultSetCount();
        const std::size_t runs = window.context().timingLog()->records().size();
        QCOMPARE(resultSets, 5);
        QVERIFY(saved[QStringLiteral("modules")].toObject()[QStringLiteral("common")].toObject().contains(
            QStringLiteral("second")));

        // Another image: every overlay and result goes.
        QVERIFY(openAndWait(window, brightest::writeMatrix(scene(50, 40, 3), QStringLiteral("other.csv"))));
        QVERIFY(withoutView(window.sessions()->capture()) != withoutView(saved));

        QString failure;
        QVERIFY2(openSession(window, path, &failure), qPrintable(failure));
        QVERIFY(waitDrawn(window));
        // The results dock takes its rows once the results are back (issue 34): the canvas, and a fitted view, settle.
        QSize settled;
        QTRY_VERIFY(std::exchange(settled, window.canvas()->size()) == window.canvas()->size());
        const QJsonObject restored = window.sessions()->capture();
        QVERIFY2(withoutView(restored) == withoutView(saved),
                 qPrintable(describeDifference(withoutView(saved), withoutView(restored))));
        QVERIFY(sameView(restored, saved));
        QCOMPARE(window.resultsDock()->resultSetCount(), resultSets);
        QCOMPARE(window.context().timingLog()->records().size(), runs);
        QCOMPARE(picture(window), before);
        QVERIFY(!test::findModule<RegionStatisticsModule>(window)->layer()->isVisible());
        QCOMPARE(window.context().layers()->layers().first(),
                 static_cast<OverlayLayer*>(test::findModule<TraceModule>(window)->layer()));
        QCOMPARE(test::findModule<BrightestModule>(window)->panel()->kBox()->value(), 7);
        QCOMPARE(test::findModule<BrightestModule>(window)->exclusionCount(), 2);
        QCOMPARE(test::findModule<CommonComponentModule>(window)->view(), CommonComponentModule::View::Blend);
        QCOMPARE(test::findModule<CommonComponentModule>(window)->secondImagePath(), pathB_);
        // New work goes on from the restored state: the next brightest run is #3, the next trace #2.
        QString message;
        QVERIFY(runBrightest(window, 1, QStringLiteral("median"), QStringLiteral("cpu"), &message));
        QVERIFY(test::findModule<BrightestModule>(window)->runs().back().title.startsWith(QStringLiteral("Brightest #3")));

        // A new window opens it the same.
        MainWindow fresh({false, false});
        brightest::showWindow(fresh);
        QVERIFY2(waitOpened(fresh, &failure, [&] { fresh.openFile(path); }), qPrintable(failure)); // .json: a session
        QVERIFY(waitDrawn(fresh));
        const QJsonObject again = fresh.sessions()->capture();
        QVERIFY2(withoutView(again) == withoutView(saved),
                 qPrintable(describeDifference(withoutView(saved), withoutView(again))));
        QCOMPARE(picture(fresh), before);
    }

    // A session written by Glint before the results took the descriptors' JSON form (session version 1,
    // committed in tests/data/session-v1 with its two images) opens with every result as it was saved,
    // and saved again it is a version 2 file that opens to the same document.
    void versionOneSessionOpens() {
        const QString dir = QDir(dir_).filePath(QStringLiteral("v1"));
        QVERIFY(QDir().mkpath(dir));
        for (const char* name : {"session.glint.json", "session-a.csv", "session-b.csv"})
            QVERIFY(QFile::copy(QStringLiteral(GLINT_TEST_DATA_DIR "/session-v1/") + QLatin1String(name),
                                QDir(dir).filePath(QLatin1String(name))));
        MainWindow window({false, false});
        brightest::showWindow(window);
        QString failure;
        QVERIFY2(openSession(window, QDir(dir).filePath(QStringLiteral("session.glint.json")), &failure),
                 qPrintable(failure));
        QVERIFY(waitDrawn(window));
        QCOMPARE(window.resultsDock()->resultSetCount(), 5);
        const auto& runs = test::findModule<BrightestModule>(window)->runs();
        QCOMPARE(static_cast<int>(runs.size()), 2);
        const glint::BrightestResult& first = runs.front().results.front();
        QCOMPARE(first.regions.size(), std::size_t(2));
        QCOMPARE(QRect(first.regions[0].x, first.regions[0].y, first.regions[0].width, first.regions[0].height),
                 QRect(32, 30, 84, 50));
        QCOMPARE(first.regions[0].sum, 124904.15119363432);
        QCOMPARE(first.pivotSpec.text(), std::string("mean"));
        QCOMPARE(static_cast<int>(runs.back().results.size()), 2); // the sweep's two pivots
        QCOMPARE(test::findModule<BrightestModule>(window)->exclusionCount(), 2);
        auto* common = test::findModule<CommonComponentModule>(window);
        QVERIFY(common->result());
        QCOMPARE(common->result()->size, std::uint64_t(6300));
        QCOMPARE(common->result()->dx, -30);
        QCOMPARE(common->result()->dy, -20);

        const QJsonObject restored = window.sessions()->capture();
        QCOMPARE(restored[QStringLiteral("version")].toInt(), 2);
        const QString again = QDir(dir).filePath(QStringLiteral("again.glint.json"));
        window.sessions()->save(again);
        MainWindow fresh({false, false});
        brightest::showWindow(fresh);
        QVERIFY2(openSession(fresh, again, &failure), qPrintable(failure));
        QVERIFY(waitDrawn(fresh));
        const QJsonObject reopened = fresh.sessions()->capture();
        QVERIFY2(withoutView(reopened) == withoutView(restored),
                 qPrintable(describeDifference(withoutView(restored), withoutView(reopened))));
    }

    // A session whose image B is gone, or whose main image is gone: a message naming the file, and the
    // window keeps what it showed.
    void missingImageChangesNothing_data() {
        test::addBoolRows("mainImage", "image B missing", "main image missing");
    }
    void missingImageChangesNothing() {
        QFETCH(bool, mainImage);
        const QString folder = QDir(dir_).filePath(QStringLiteral("missing-%1").arg(mainImage));
        QVERIFY(QDir().mkpath(folder));
        const QString a = QDir(folder).filePath(QStringLiteral("a.csv")),
                      b = QDir(folder).filePath(QStringLiteral("b.csv"));
        QVERIFY(QFile::copy(pathA_, a) && QFile::copy(pathB_, b));
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndRunBrightestAndCommon(window, a, b));
        const QString session = QDir(dir_).filePath(QStringLiteral("missing-%1.glint.json").arg(mainImage));
        window.sessions()->save(session);

        // Now something else is on screen, and the session's file goes.
        QVERIFY(openAndWait(window, pathA_));
        QString message;
        QVERIFY(runBrightest(window, 2, QStringLiteral("p90"), QStringLiteral("cpu"), &message));
        QVERIFY(waitDrawn(window));
        const QJsonObject current = window.sessions()->capture();
        const auto image = window.context().image();
        const QString gone = mainImage ? a : b;
        QVERIFY(QFile::remove(gone));
        QString failure;
        QVERIFY(!openSession(window, session, &failure));
        QVERIFY2(failure.contains(gone), qPrintable(failure));
        QCOMPARE(window.statusBar()->currentMessage(), ui::asSentence(failure)); // shown as a sentence
        QCOMPARE(window.context().image(), image);
        QCOMPARE(window.sessions()->capture(), current);
    }

    // Damaged sessions: not JSON, not a session, a region outside the image, a result without image B.
    void damagedSessionChangesNothing() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndRunBrightestAndCommon(window, pathA_, pathB_));
        QVERIFY(waitDrawn(window));
        const QJsonObject good = window.sessions()->capture();
        QJsonObject outside = good, noB = good, wrongType = good;
        {
            QJsonObject modules = outside[QStringLiteral("modules")].toObject();
            QJsonObject b = modules[QStringLiteral("brightest")].toObject();
            QJsonArray runs = b[QStringLiteral("runs")].toArray();
            QJsonObject run = runs[0].toObject();
            QJsonArray results = run[QStringLiteral("results")].toArray();
            QJsonObject result = results[0].toObject();
            QJsonArray regions = result[QStringLiteral("regions")].toArray();
            QJsonObject region = regions[0].toObject();
            region[QStringLiteral("x")] = 150; // 150..169 x 100..129 on a 160 x 120 image
            region[QStringLiteral("y")] = 100;
            region[QStringLiteral("width")] = 20;
            region[QStringLiteral("height")] = 30;
            regions[0] = region;
            result[QStringLiteral("regions")] = regions;
            results[0] = result;
            run[QStringLiteral("results")] = results;
            runs[0] = run;
            b[QStringLiteral("runs")] = runs;
            modules[QStringLiteral("brightest")] = b;
            outside[QStringLiteral("modules")] = modules;
        }
        {
            QJsonObject modules = noB[QStringLiteral("modules")].toObject();
            QJsonObject c = modules[QStringLiteral("common")].toObject();
            c.remove(QStringLiteral("second"));
            modules[QStringLiteral("common")] = c;
            noB[QStringLiteral("modules")] = modules;
        }
        wrongType[QStringLiteral("display")] = QStringLiteral("linear");
        // Something else is on screen when each is opened.
        QVERIFY(openAndWait(window, brightest::writeMatrix(scene(60, 50, 8), QStringLiteral("current.csv"))));
        QString message;
        QVERIFY(runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message));
        const QJsonObject current = window.sessions()->capture();
        const QList<QPair<QString, QByteArray>> cases = {
            {QStringLiteral("not json"), QByteArray("{ \"format\": \"glint-session\", ")},
            {QStringLiteral("not a session"), QByteArray("{\"format\": \"something else\"}")},
            {QStringLiteral("outside"), QJsonDocument(outside).toJson()},
            {QStringLiteral("no image B"), QJsonDocument(noB).toJson()},
            {QStringLiteral("wrong type"), QJsonDocument(wrongType).toJson()},
        };
        for (const auto& [name, bytes] : cases) {
            const QString path = QDir(dir_).filePath(name + QStringLiteral(".json"));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
            f.close();
            QString failure;
            QVERIFY2(!openSession(window, path, &failure), qPrintable(name));
            QVERIFY2(!failure.isEmpty(), qPrintable(name));
            QVERIFY2(window.sessions()->capture() == current, qPrintable(name + QStringLiteral(": ") + failure));
        }
        // The good one still opens.
        const QString path = QDir(dir_).filePath(QStringLiteral("good.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(good).toJson());
        f.close();
        QString failure;
        QVERIFY2(openSession(window, path, &failure), qPrintable(failure));
    }

    // An image made in memory has no file to open again: saving it is refused with a message.
    void inMemoryImageIsNotSaved() {
        MainWindow window({false, false});
        window.context().setImage(scene(20, 10, 1), QStringLiteral("generated"));
        const QString path = QDir(dir_).filePath(QStringLiteral("memory.glint.json"));
        QVERIFY_THROWS_EXCEPTION(glint::UsageError, window.sessions()->save(path));
        QVERIFY(!QFileInfo::exists(path));
    }

    // A folder with the session and its images, moved whole: the images are found beside the session.
    void movedFolder() {
        const QString from = QDir(dir_).filePath(QStringLiteral("project")),
                      to = QDir(dir_).filePath(QStringLiteral("moved"));
        QVERIFY(QDir().mkpath(from));
        const QString a = QDir(from).filePath(QStringLiteral("a.csv")),
                      b = QDir(from).filePath(QStringLiteral("b.csv"));
        QVERIFY(QFile::copy(pathA_, a) && QFile::copy(pathB_, b));
        QImage before;
        {
            MainWindow window({false, false});
            brightest::showWindow(window);
            QVERIFY(openAndWait(window, a));
            QVERIFY(runCommon(window, b, 0.0));
            QVERIFY(waitDrawn(window));
            window.sessions()->save(QDir(from).filePath(QStringLiteral("s.glint.json")));
            before = picture(window);
        }
        QVERIFY(QDir().rename(from, to));
        MainWindow window({false, false});
        brightest::showWindow(window);
        QString failure;
        QVERIFY2(openSession(window, QDir(to).filePath(QStringLiteral("s.glint.json")), &failure), qPrintable(failure));
        QVERIFY(waitDrawn(window));
        QCOMPARE(window.context().imagePath(), QDir(to).filePath(QStringLiteral("a.csv")));
        QCOMPARE(test::findModule<CommonComponentModule>(window)->secondImagePath(), QDir(to).filePath(QStringLiteral("b.csv")));
        QCOMPARE(picture(window), before);
    }

    // A window abandoned without closing (as a crash leaves it: the autosave and the running marker stay,
    // the lock is free): the next window offers the session and restores it as it was.
    void autosaveOfferedAfterACrash() {
        const QString dir = QDir(dir_).filePath(QStringLiteral("autosave-crash"));
        QJsonObject last;
        QImage before;
        {
            auto* window = new MainWindow({false, false, dir, 3600000});
            brightest::showWindow(*window);
            QVERIFY(window->autosave() && window->autosave()->isActive());
            QVERIFY(QFileInfo::exists(window->autosave()->markerPath()));
            buildSession(*window);
            if (QTest::currentTestFailed()) return;
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(window->autosave()->sessionPath()), 10000);
            // Changes since the last result (layer colours, the view) go with the timer's next turn: now.
            window->autosave()->saveNow();
            last = window->sessions()->capture();
            QCOMPARE(QJsonDocument::fromJson(readAll(window->autosave()->sessionPath())).object(), last);
            before = picture(*window);
            delete window; // no close: not a normal exit
        }
        QCOMPARE(autosaveFiles(dir).size(), 2); // the session and its marker; the lock went with the window
        qputenv("GLINT_AUTOSAVE_ANSWER", "restore");
        MainWindow window({false, false, dir, 3600000});
        qunsetenv("GLINT_AUTOSAVE_ANSWER");
        QSignalSpy found(window.autosave(), &Autosave::crashedSessionFound);
        QSignalSpy answered(window.autosave(), &Autosave::restoreAnswered);
        brightest::showWindow(window);
        QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, 5000);
        QCOMPARE(answered.count(), 1);
        QCOMPARE(answered.first().first().toBool(), true);
        QString failure;
        QVERIFY2(waitOpened(window, &failure), qPrintable(failure));
        QVERIFY(waitDrawn(window));
        const QJsonObject restored = window.sessions()->capture();
        QVERIFY2(withoutView(restored) == withoutView(last),
                 qPrintable(describeDifference(withoutView(last), withoutView(restored))));
        QCOMPARE(picture(window), before);
        // The crashed run's files are gone; this run's marker (and lock, and soon its own autosave) remain.
        QTRY_VERIFY(!autosaveFiles(dir).contains(QFileInfo(found.first().first().toString()).fileName()));
        for (const QString& name : autosaveFiles(dir))
            QVERIFY2(name.contains(QFileInfo(window.autosave()->markerPath()).completeBaseName()), qPrintable(name));
    }

    // A real glint process killed while it runs (its lock file names a dead process): offered and restored.
    void autosaveOfferedAfterAKilledProcess() {
        const QString glint = QDir(qEnvironmentVariable("GLINT_BUILD_DIR")).filePath(QStringLiteral("app/glint"));
        if (!QFileInfo(glint).isExecutable()) QSKIP("the glint program is not built");
        const QString dir = QDir(dir_).filePath(QStringLiteral("autosave-killed"));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("GLINT_AUTOSAVE_DIR"), dir);
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), QDir(dir_).filePath(QStringLiteral("killed-config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), QDir(dir_).filePath(QStringLiteral("killed-data")));
        process.setProcessEnvironment(env);
        process.start(glint, {pathA_});
        QVERIFY(process.waitForStarted(10000));
        QTRY_VERIFY_WITH_TIMEOUT(QDir(dir).entryList({QStringLiteral("session-*.json")}, QDir::Files).size() == 1,
                                 30000);
        QTRY_VERIFY_WITH_TIMEOUT(
            QDir(dir).entryList({QStringLiteral("session-*.json")}, QDir::Files).size() == 1 &&
                QJsonDocument::fromJson(
                    readAll(QDir(dir).filePath(QDir(dir).entryList({QStringLiteral("session-*.json")}).first())))
                    .isObject(),
            10000);
        process.kill(); // SIGKILL: no clean-up at all
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(QDir(dir).entryList({QStringLiteral("session-*.lock")}, QDir::Files).size(),
                 1); // left by the dead process

        qputenv("GLINT_AUTOSAVE_ANSWER", "restore");
        MainWindow window({false, false, dir, 3600000});
        qunsetenv("GLINT_AUTOSAVE_ANSWER");
        QSignalSpy found(window.autosave(), &Autosave::crashedSessionFound);
        brightest::showWindow(window);
        QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, 5000);
        QString failure;
        QVERIFY2(waitOpened(window, &failure), qPrintable(failure));
        QCOMPARE(window.context().imagePath(), pathA_);
        QTRY_COMPARE(QDir(dir).entryList({QStringLiteral("session-*.lock")}, QDir::Files).size(),
                     1); // this window's own
    }

    // In an interactive window the offer is a question that does not block the window; "Restore" restores.
    void questionBox() {
        const QString dir = QDir(dir_).filePath(QStringLiteral("autosave-question"));
        {
            auto* window = new MainWindow({false, false, dir, 3600000});
            QVERIFY(openAndWait(*window, pathA_));
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(window->autosave()->sessionPath()), 10000);
            delete window;
        }
        MainWindow window({false, true, dir, 3600000});
        QSignalSpy answered(window.autosave(), &Autosave::restoreAnswered);
        brightest::showWindow(window);
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = window.findChild<QMessageBox*>()) && box->isVisible(), 5000);
        QVERIFY(box->text().contains(QStringLiteral("did not exit normally")));
        QVERIFY(!window.context().hasImage()); // nothing happens before the answer
        QAbstractButton* restore = nullptr;
        for (QAbstractButton* b : box->buttons())
            if (b->text() == QLatin1String("Restore")) restore = b;
        QVERIFY(restore);
        QString failure;
        QVERIFY2(waitOpened(window, &failure, [&] { restore->click(); }), qPrintable(failure));
        QCOMPARE(answered.count(), 1);
        QCOMPARE(window.context().imagePath(), pathA_);
        window.close();
    }

    // A clean exit removes the autosave: nothing is offered. "Discard" removes a crashed run's files.
    void cleanExitAndDiscard() {
        const QString dir = QDir(dir_).filePath(QStringLiteral("autosave-clean"));
        {
            MainWindow window({false, false, dir, 3600000});
            brightest::showWindow(window);
            QVERIFY(openAndWait(window, pathA_));
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(window.autosave()->sessionPath()), 10000);
            window.close();
            QCOMPARE(autosaveFiles(dir), QStringList());
        }
        {
            qputenv("GLINT_AUTOSAVE_ANSWER", "restore");
            MainWindow window({false, false, dir, 3600000});
            qunsetenv("GLINT_AUTOSAVE_ANSWER");
            QSignalSpy found(window.autosave(), &Autosave::crashedSessionFound);
            brightest::showWindow(window);
            QTest::qWait(300);
            QCOMPARE(found.count(), 0);
            QVERIFY(!window.context().hasImage());
            QVERIFY(openAndWait(window, pathA_));
            QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(window.autosave()->sessionPath()), 10000);
            // Abandoned: a crash.
        }
        QCOMPARE(autosaveFiles(dir).size(), 2);
        {
            // Without an answer a non-interactive window leaves the files for later.
            MainWindow window({false, false, dir, 3600000});
            QSignalSpy found(window.autosave(), &Autosave::crashedSessionFound);
            QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, 5000);
            QVERIFY(!window.context().hasImage());
            window.close();
        }
        QCOMPARE(autosaveFiles(dir).size(), 2);
        qputenv("GLINT_AUTOSAVE_ANSWER", "discard");
        MainWindow window({false, false, dir, 3600000});
        qunsetenv("GLINT_AUTOSAVE_ANSWER");
        QSignalSpy answered(window.autosave(), &Autosave::restoreAnswered);
        QTRY_COMPARE_WITH_TIMEOUT(answered.count(), 1, 5000);
        QCOMPARE(answered.first().first().toBool(), false);
        QVERIFY(!window.context().hasImage());
        QStringList left = autosaveFiles(dir);
        QCOMPARE(left.size(), 2); // this window's marker and lock
        for (const QString& name : left)
            QVERIFY(name.contains(QFileInfo(window.autosave()->markerPath()).completeBaseName()));
        window.close();
        QCOMPARE(autosaveFiles(dir), QStringList());
    }
};

GLINT_GUI_TEST_MAIN(TestGuiSession)
#include "test_gui_session.moc"
