// Helpers shared by the GUI tests: their main (settings isolated from the user's, backends registered),
// waiting until an image is loaded and drawn, a module of the window and its registration, and picture checks
// (is a grab blank?).
#pragma once

#include "cuda/Backends.h"
#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/SampleFiles.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/docks/ParametersDock.h"
#include "ui/jobs/JobRunner.h"
#include "ui/jobs/JobStatusWidget.h"
#include "ui/modules/AnalysisModule.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QToolButton>
#include <QTimer>
#include <QSet>
#include <QFileInfo>
#include <QStandardPaths>
#include <QtTest>

#include "core/jobs/JobControl.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace glint::test {

// Holds the next job that reports progress strictly between 0 and 1 (the window's jobs too, whose
// JobControl a test cannot reach) at that report until release(), or at most 60 s. A test then acts
// (clicks Cancel) while the job is known to be running with work left, however fast the machine is.
class HoldJobAtProgress {
public:
    HoldJobAtProgress() : state_(std::make_shared<State>()) {
        JobControl::setGlobalProgressObserver([s = state_](JobControl&, double fraction) {
            if (!(fraction > 0.0 && fraction < 1.0)) return;
            std::unique_lock lock(s->mutex);
            if (s->held) return;
            s->held = true;
            s->changed.wait_for(lock, std::chrono::seconds(60), [&] { return s->released; });
        });
    }
    ~HoldJobAtProgress() {
        release();
        JobControl::setGlobalProgressObserver({});
    }
    HoldJobAtProgress(const HoldJobAtProgress&) = delete;
    HoldJobAtProgress& operator=(const HoldJobAtProgress&) = delete;
    bool held() const {
        std::lock_guard lock(state_->mutex);
        return state_->held;
    }
    void release() {
        {
            std::lock_guard lock(state_->mutex);
            state_->released = true;
        }
        state_->changed.notify_all();
    }

private:
    struct State {
        std::mutex mutex;
        std::condition_variable changed;
        bool held = false;
        bool released = false;
    };
    std::shared_ptr<State> state_;
};

// Call before any test (GLINT_GUI_TEST_MAIN does; other suites in initTestCase()): QSettings and other
// files go to test locations, never the user's.
inline void isolateSettings() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("GlintTests"));
    // One settings file per test program: ctest runs GUI suites side by side, and one suite's saved choices
    // (display defaults, the sexagesimal toggle, window state) must not reach another running at the same time.
    QCoreApplication::setApplicationName(QStringLiteral("GlintTests-") +
                                         QFileInfo(QCoreApplication::applicationFilePath()).completeBaseName());
}

// Resizes and shows a window; false when it is not exposed (on screen) in time.
inline bool showExposed(QWidget& window, const QSize& size) {
    window.resize(size);
    window.show();
    return QTest::qWaitForWindowExposed(&window);
}

// True once the context shows an image and its frame is the one for the current settings.
inline bool imageShown(const ui::AppContext& ctx) {
    return ctx.hasImage() && !ctx.isLoading() && !ctx.isRendering() && ctx.frame() && ctx.frame()->image == ctx.image();
}

struct PictureStats {
    double variance = 0.0; // of grey levels 0..255
    int distinctColours = 0;
};

inline PictureStats pictureStats(const QImage& picture, const QRect& area = {}) {
    const QImage img = picture.convertToFormat(QImage::Format_RGB32);
    const QRect r = area.isNull() ? img.rect() : area.intersected(img.rect());
    QSet<QRgb> colours;
    double sum = 0, sum2 = 0;
    const double n = static_cast<double>(r.width()) * r.height();
    for (int y = r.top(); y <= r.bottom(); ++y) {
        const auto* row = reinterpret_cast<const QRgb*>(img.constScanLine(y));
        for (int x = r.left(); x <= r.right(); ++x) {
            const QRgb c = row[x];
            if (colours.size() < 100000) colours.insert(c);
            const double g = qGray(c);
            sum += g;
            sum2 += g * g;
        }
    }
    PictureStats s;
    s.variance = n > 0 ? sum2 / n - (sum / n) * (sum / n) : 0.0;
    s.distinctColours = static_cast<int>(colours.size());
    return s;
}

// The window's menu of that title (mnemonic ampersands ignored), or null.
inline QMenu* menuNamed(ui::MainWindow& window, const QString& title) {
    for (QAction* a : window.menuBar()->actions())
        if (a->text().remove(QLatin1Char('&')) == title) return a->menu();
    return nullptr;
}

// The window's module of type M; null when it has none.
template <class M>
M* findModule(ui::MainWindow& window) {
    for (ui::AnalysisModule* m : window.modules())
        if (auto* found = qobject_cast<M*>(m)) return found;
    return nullptr;
}

// True when the module is there, its actions are in the window's Analyze menu and its panel is the
// parameters dock's page of its name (shown by this call).
inline bool moduleRegistered(ui::MainWindow& window, ui::AnalysisModule* module) {
    QMenu* analyze = menuNamed(window, QStringLiteral("Analyze"));
    if (!module || !analyze) return false;
    for (QAction* a : module->actions())
        if (!analyze->actions().contains(a)) return false;
    window.parametersDock()->showPanel(module->name());
    return window.parametersDock()->currentTitle() == module->name();
}

// Clicks the job status bar's Cancel, calls `afterClick` (releases a held job, say) and waits up to 10 s
// for the job runner's cancelled signal: the milliseconds from the click to it, or -1 when it never came.
inline qint64 clickCancelAndTime(ui::MainWindow& window, const std::function<void()>& afterClick) {
    QEventLoop loop;
    QElapsedTimer clock;
    qint64 after = -1;
    QObject::connect(window.context().jobs(), &ui::JobRunner::cancelled, &loop, [&] {
        after = clock.elapsed();
        loop.quit();
    });
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    clock.start();
    window.jobStatus()->cancelButton()->click();
    afterClick();
    loop.exec();
    return after;
}

// Rests the mouse over an image point of the canvas and says whether `done` holds; meant for QTRY_VERIFY, so
// that each try moves to where the point is now (the window may still settle its layout, and so the view, on
// a loaded machine).
inline bool hoverImagePoint(ui::ImageCanvas* canvas, QPointF imagePoint, const std::function<bool()>& done) {
    QTest::mouseMove(canvas, canvas->view().imageToWidget(imagePoint).toPoint());
    return done();
}

} // namespace glint::test

// The main of a suite that drives the window: QTEST_MAIN with the settings isolated (isolateSettings) and
// every backend registered before the suite runs.
#define GLINT_GUI_TEST_MAIN(TestObject)                                                                      \
    QTEST_MAIN_WRAPPER(TestObject, QTEST_MAIN_SETUP()::glint::test::isolateSettings(); ::glint::initBackends();)

// Waits (up to 30 s) until the window's image is loaded and drawn.
#define GLINT_WAIT_FOR_IMAGE(window) QTRY_VERIFY_WITH_TIMEOUT(glint::test::imageShown((window).context()), 30000)
