// The main window on the offscreen platform: every bundled sample opens and is drawn (not blank), FITS is
// shown y-up, the status bar readouts, a failed open keeps the current image, the header filter, and the
// bundled samples are found.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "ui/StatusReadout.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/docks/HeaderDock.h"
#include "core/io/ImageLoader.h"
#include "core/io/Wcs.h"
#include "core/jobs/Backend.h"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QElapsedTimer>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QUndoStack>

using namespace glint;
using glint::ui::MainWindow;

class TestGuiWindow : public QObject {
    Q_OBJECT

private:
    static ui::MainWindowOptions quiet() { return {false, false}; }

    // A w×h 8-bit image, 0 everywhere except rows [0, brightRows) which are 255.
    static Image brightTopRows(int w, int h, int brightRows, bool yUp) {
        std::vector<std::uint8_t> v(static_cast<std::size_t>(w) * h, 0);
        std::fill(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(brightRows) * w, 255);
        Image image = Image::fromSamples<std::uint8_t>(w, h, std::move(v));
        image.meta.displayYUp = yUp;
        image.meta.format = "PGM";
        return image;
    }

private slots:
    void samplesAreFound() {
        const QStringList samples = ui::bundledSamples();
        QVERIFY2(samples.size() >= 3, qPrintable(samples.join(", ")));
        QVERIFY(ui::defaultSample().endsWith(QLatin1String("synthetic-mammogram.png")));
        for (const QString& name : {QStringLiteral("aero.png"), QStringLiteral("ngc1316o.fit"), QStringLiteral("synthetic-mammogram.png")}) {
            QVERIFY(std::any_of(samples.begin(), samples.end(), [&](const QString& p) { return p.endsWith(name); }));
            // Each sample has its licence or readme beside it.
            const QDir dir(ui::samplesDirectory());
            QVERIFY2(!dir.entryList({name + QStringLiteral(".*.txt")}).isEmpty(), qPrintable(name));
        }
    }

    void openEachSample_data() {
        test::columns<QString, QSize>({"name", "size"});
        QTest::newRow("aero") << "aero.png" << QSize(512, 512);
        QTest::newRow("mammogram") << "synthetic-mammogram.png" << QSize(1024, 1024);
        QTest::newRow("ngc1316o") << "ngc1316o.fit" << QSize(440, 300);
    }
    void openEachSample() {
        QFETCH(QString, name);
        QFETCH(QSize, size);
        const QString path = test::samplePath(name);
        if (detectFileFormat(path.toStdString()) == FileFormat::Fits) {
            try {
                loadImage(path.toStdString());
            } catch (const InputError& e) {
                if (QString::fromStdString(e.what()).contains(QLatin1String("not built yet")))
                    QSKIP("the FITS loader is not merged into this branch yet");
                throw;
            }
        }
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        window.openFile(path);
        GLINT_WAIT_FOR_IMAGE(window);
        const ui::AppContext& ctx = window.context();
        QCOMPARE(QSize(ctx.image()->width(), ctx.image()->height()), size);
        QVERIFY(window.windowTitle().contains(name));

        // The canvas shows the image: many grey levels, clearly varying.
        ui::ImageCanvas* canvas = window.canvas();
        const QImage picture = canvas->grab().toImage();
        const QRect shown = canvas->view().imageRectInWidget().toAlignedRect().intersected(canvas->rect()).adjusted(2, 2, -2, -2);
        const test::PictureStats stats = test::pictureStats(picture, shown);
        QVERIFY2(stats.variance > 100.0, qPrintable(QString::number(stats.variance)));
        QVERIFY2(stats.distinctColours >= 32, qPrintable(QString::number(stats.distinctColours)));
        // The whole window too (docks, histogram, status bar): far from one flat colour.
        QVERIFY(test::pictureStats(window.grab().toImage()).distinctColours >= 64);
        // Header summary and readouts.
        QVERIFY(window.headerDock()->summary()->text().contains(QStringLiteral("%1 × %2").arg(size.width()).arg(size.height())));
        QCOMPARE(window.readout()->backendText(), QString::fromStdString(backendStatusText()));
        if (ctx.image()->meta.format == "FITS") {
            QVERIFY(ctx.image()->meta.displayYUp);
            QVERIFY(ctx.image()->meta.wcs); // ngc1316o carries a celestial WCS
            window.readout()->showCursor(QPointF(225, 146));
            const QString sky = window.readout()->skyText();
            QVERIFY2(sky.startsWith(QLatin1String("RA ")) && sky.contains(QLatin1String("Dec ")), qPrintable(sky));
            const auto at = ctx.image()->meta.wcs->pixelToSky(225, 146);
            QVERIFY(at);
            QVERIFY(sky.contains(QString::fromStdString(formatRa(at->ra))));
            QVERIFY(sky.contains(QString::fromStdString(formatDec(at->dec))));
            QVERIFY(window.headerDock()->visibleRowCount() > 10); // FITS cards
        }
    }

    void fitsIsShownYUp_data() {
        test::addBoolRows("yUp", "row 0 on top (PNG)", "row 0 at the bottom (FITS)");
    }
    void fitsIsShownYUp() {
        QFETCH(bool, yUp);
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1000, 700)));
        window.context().setImage(brightTopRows(64, 48, 4, yUp), QStringLiteral("rows"));
        GLINT_WAIT_FOR_IMAGE(window);
        ui::ImageCanvas* canvas = window.canvas();
        const QImage picture = canvas->grab().toImage();
        const ui::ViewTransform view = canvas->view();
        const QRectF shown = view.imageRectInWidget();
        // Row 1 is bright and drawn in the top or bottom band of the displayed image; row 40 is dark.
        const QPointF bright = view.imageToWidget(QPointF(32, 1));
        const QPointF dark = view.imageToWidget(QPointF(32, 40));
        QCOMPARE(qGray(picture.pixel(bright.toPoint())), 255);
        QCOMPARE(qGray(picture.pixel(dark.toPoint())), 0);
        if (yUp) QVERIFY(bright.y() > shown.bottom() - shown.height() * 0.1);
        else QVERIFY(bright.y() < shown.top() + shown.height() * 0.1);
        // And the mapping back gives row 1 under that widget point.
        QCOMPARE(ui::ViewTransform::pixelAt(view.widgetToImage(bright)), QPoint(32, 1));
        // The readout of the widget point names the stored row, not the screen row.
        QMouseEvent move(QEvent::MouseMove, bright, canvas->mapToGlobal(bright), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(window.canvas(), &move);
        QCOMPARE(window.readout()->pixelText(), QStringLiteral("x 32  y 1"));
        QCOMPARE(window.readout()->valueText(), QStringLiteral("value 255"));
    }

    void statusTexts() {
        std::vector<float> v = {1.5f, -2.25f, 3.0f, 4.0f, 5.0f, 6.0f};
        Image image = Image::fromSamples<float>(3, 2, v);
        image.setBlankMask({0, 0, 0, 0, 1, 0});
        QCOMPARE(ui::StatusReadout::formatPixel(image, 2, 1), QStringLiteral("x 2  y 1"));
        QCOMPARE(ui::StatusReadout::formatValue(image, 1, 0), QStringLiteral("value -2.25"));
        QCOMPARE(ui::StatusReadout::formatValue(image, 1, 1), QStringLiteral("value blank"));
        QCOMPARE(ui::StatusReadout::formatPixel(image, 3, 0), QString()); // outside
        QCOMPARE(ui::StatusReadout::formatSky(image, 0, 0), QString());   // no WCS
        std::vector<std::int32_t> big = {2147483647, -5};
        const Image ints = Image::fromSamples<std::int32_t>(2, 1, big);
        QCOMPARE(ui::StatusReadout::formatValue(ints, 0, 0), QStringLiteral("value 2147483647"));

        MainWindow window(quiet());
        window.show();
        window.context().setImage(std::move(image), QStringLiteral("memory"));
        window.readout()->showCursor(QPointF(0.4, 0.49)); // nearest centre: pixel (0, 0)
        QCOMPARE(window.readout()->pixelText(), QStringLiteral("x 0  y 0"));
        QCOMPARE(window.readout()->valueText(), QStringLiteral("value 1.5"));
        window.readout()->showCursor(QPointF(1.2, 0.6));
        QCOMPARE(window.readout()->valueText(), QStringLiteral("value blank"));
        const QString backend = window.readout()->backendText();
        QVERIFY(backend.startsWith(QLatin1String("CUDA: ")) || backend.contains(QStringLiteral("no CUDA device")));
        QCOMPARE(backend, QString::fromStdString(backendStatusText()));
    }

    void failedOpenKeepsImage() {
        MainWindow window(quiet());
        window.show();
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        const auto before = window.context().image();
        QSignalSpy failed(&window.context(), &ui::AppContext::loadFailed);
        const QString junk = test::tempDir() + QStringLiteral("/junk.png");
        {
            QFile f(junk);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("\x89PNG\r\n\x1a\n truncated", 18);
        }
        window.openFile(junk);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        const QString message = failed.at(0).at(1).toString();
        QVERIFY2(message.contains(QLatin1String("junk.png")), qPrintable(message));
        QVERIFY(!message.contains(QLatin1Char('\n')));
        QCOMPARE(window.context().image(), before);
        QVERIFY(!window.context().isLoading());
        QVERIFY(window.recentFiles().first().endsWith(QLatin1String("aero.png")));
    }

    void newerOpenWins() {
        MainWindow window(quiet());
        window.show();
        window.openFile(test::samplePath(QStringLiteral("synthetic-mammogram.png")));
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        QTest::qWait(300); // the first load must not arrive late and replace the second
        QVERIFY(window.context().imagePath().endsWith(QLatin1String("aero.png")));
    }

    void dropOpensFile() {
        MainWindow window(quiet());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(test::samplePath(QStringLiteral("aero.png")))});
        const QPoint at = window.canvas()->geometry().center();
        QDragEnterEvent enter(at, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(at, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(window.context().imagePath().endsWith(QLatin1String("aero.png")));
    }

    void dicomWindowIsTheDefaultDisplay() {
        Image image = brightTopRows(16, 16, 2, false);
        image.meta.windowCenter = 100.0;
        image.meta.windowWidth = 50.0;
        MainWindow window(quiet());
        window.context().setImage(std::move(image), QStringLiteral("dicom"));
        QCOMPARE(window.context().displaySettings().limits, LimitsMode::Window);
        QCOMPARE(window.context().displayLimits().low, 75.0);
        QCOMPARE(window.context().displayLimits().high, 125.0);
        // The next image without a window goes back to the preferred (percentile) limits.
        window.context().setImage(brightTopRows(16, 16, 2, false), QStringLiteral("plain"));
        QCOMPARE(window.context().displaySettings().limits, LimitsMode::Percentile);
    }

    void settingsPersist() {
        QSettings().clear();
        {
            MainWindow window; // persisting, in the test-mode settings location
            window.show();
            window.openFile(test::samplePath(QStringLiteral("aero.png")));
            GLINT_WAIT_FOR_IMAGE(window);
            DisplaySettings s = window.context().displaySettings();
            s.scale = DisplayScale::Sqrt;
            s.colormap = Colormap::Viridis;
            s.limits = LimitsMode::ZScale;
            window.context().setDisplaySettings(s);
            window.context().applyDisplayToAll(); // only an explicit default is kept (issue 34)
            window.close();
        }
        MainWindow again;
        QVERIFY(!again.recentFiles().isEmpty());
        QVERIFY(again.recentFiles().first().endsWith(QLatin1String("aero.png")));
        QCOMPARE(again.context().preferredDisplay().scale, DisplayScale::Sqrt);
        QCOMPARE(again.context().preferredDisplay().colormap, Colormap::Viridis);
        QCOMPARE(again.context().preferredDisplay().limits, LimitsMode::ZScale);
        again.context().setImage(brightTopRows(8, 8, 1, false), QStringLiteral("next"));
        QCOMPARE(again.context().displaySettings().scale, DisplayScale::Sqrt);
        QSettings().clear();
    }

    void headerFilter() {
        Image image = brightTopRows(8, 8, 1, false);
        image.meta.header = {{"OBJECT", "NGC 1316", "target"}, {"EXPTIME", "300", "seconds"}, {"FILTER", "R", "band"}};
        MainWindow window(quiet());
        window.context().setImage(std::move(image), QStringLiteral("memory"));
        ui::HeaderDock* dock = window.headerDock();
        QCOMPARE(dock->visibleRowCount(), 3);
        dock->filter()->setText(QStringLiteral("ngc"));
        QCOMPARE(dock->visibleRowCount(), 1);
        dock->filter()->setText(QStringLiteral("seconds"));
        QCOMPARE(dock->visibleRowCount(), 1);
        dock->filter()->clear();
        QCOMPARE(dock->visibleRowCount(), 3);
    }

    void bigImageZoomAndPanDoNotRerender() {
        // 4096×4096 float samples: rendered once; zoom and pan only repaint the visible part.
        std::vector<float> v(4096u * 4096u);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 2654435761u) % 100000u) / 10.0f;
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        QElapsedTimer clock;
        clock.start();
        window.context().setImage(Image::fromSamples<float>(4096, 4096, std::move(v)), QStringLiteral("big"));
        GLINT_WAIT_FOR_IMAGE(window);
        const qint64 shownMs = clock.elapsed();
        const auto frame = window.context().frame();
        QVERIFY(!frame->mipmaps.empty());
        ui::ImageCanvas* canvas = window.canvas();
        const auto timePaint = [&] {
            QElapsedTimer t;
            t.start();
            canvas->repaint();
            return t.nsecsElapsed() / 1e6;
        };
        canvas->fitToWindow();
        const double fitMs = timePaint();
        canvas->setScaleAt(1.0, QPointF(300, 300));
        const double oneMs = timePaint();
        canvas->setScaleAt(8.0, QPointF(300, 300));
        const double zoomedMs = timePaint();
        double panMs = 0;
        for (int i = 0; i < 20; ++i) {
            canvas->panBy(QPointF(13, -7));
            panMs = std::max(panMs, timePaint());
        }
        qInfo("4096x4096 float: shown after %lld ms (stats, histogram, render); paint: fit %.1f ms, 1:1 %.1f ms, "
              "8x %.1f ms, pan (max of 20) %.1f ms",
              static_cast<long long>(shownMs), fitMs, oneMs, zoomedMs, panMs);
        QCOMPARE(window.context().frame(), frame); // no new render
        QVERIFY(!window.context().display()->isBusy());
        // Generous bound (a shared, busy machine: machines and loads differ 10x); typical figures are printed
        // above. Painting the whole 4096² image unscaled on every paint would take seconds.
        QVERIFY(std::max({fitMs, oneMs, zoomedMs, panMs}) < 1500.0);
    }

    // Apply to All is one undo step: undo sets back the former default (what a new image is shown with) and the
    // display another image was left with; redo applies it again.
    void applyToAllUndoes() {
        MainWindow window(quiet());
        window.show();
        ui::AppContext& ctx = window.context();
        QUndoStack* stack = ctx.undoStack();
        QVERIFY(stack);
        const DisplaySettings formerDefault = ctx.preferredDisplay();
        // Two files (a display is remembered per file): the FITS sample and a copy of it under another name.
        const QString first = test::samplePath(QStringLiteral("ngc1316o.fit"));
        const QString second = test::tempDir() + QStringLiteral("/apply-all-copy.fits");
        QFile::remove(second);
        QVERIFY(QFile::copy(first, second));
        window.openFile(first);
        GLINT_WAIT_FOR_IMAGE(window);
        DisplaySettings a = ctx.displaySettings();
        a.scale = DisplayScale::Log;
        ctx.setDisplaySettings(a); // image a is left with a log scale
        window.openFile(second);
        GLINT_WAIT_FOR_IMAGE(window);
        DisplaySettings b = ctx.displaySettings();
        QVERIFY(b.scale != DisplayScale::Log); // a's choice is a's
        b.scale = DisplayScale::Sqrt;
        b.colormap = Colormap::Viridis;
        ctx.setDisplaySettings(b);
        const int before = stack->index();
        ctx.applyDisplayToAll();
        QCOMPARE(stack->index(), before + 1);
        QCOMPARE(ctx.preferredDisplay().scale, DisplayScale::Sqrt);
        stack->undo();
        QCOMPARE(ctx.preferredDisplay().scale, formerDefault.scale);
        QCOMPARE(ctx.preferredDisplay().colormap, formerDefault.colormap);
        stack->redo();
        QCOMPARE(ctx.preferredDisplay().scale, DisplayScale::Sqrt);
        QCOMPARE(ctx.preferredDisplay().colormap, Colormap::Viridis);
        // Undone (opening a file clears the stack: an edit belongs to one image), the first file shows its own
        // display again (log), not the default that was applied.
        stack->undo();
        QCOMPARE(ctx.preferredDisplay().scale, formerDefault.scale);
        window.openFile(first);
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(ctx.displaySettings().scale, DisplayScale::Log);
    }

    void displaySettingsRerender() {
        MainWindow window(quiet());
        window.show();
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        ui::AppContext& ctx = window.context();
        const QRgb greyPixel = ctx.frame()->pixels.pixel(100, 100);
        QCOMPARE(qRed(greyPixel), qBlue(greyPixel));
        DisplaySettings s = ctx.displaySettings();
        s.colormap = Colormap::Heat;
        ctx.setDisplaySettings(s);
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(ctx.frame()->settings.colormap, Colormap::Heat);
        const QRgb heatPixel = ctx.frame()->pixels.pixel(100, 100);
        QVERIFY(qRed(heatPixel) != qBlue(heatPixel));
        // The frame is exactly the core renderer's output.
        const auto expected = renderImage(*ctx.image(), ctx.frame()->settings, ctx.frame()->limits, 0xFF202020u);
        QCOMPARE(static_cast<std::uint32_t>(ctx.frame()->pixels.pixel(7, 300)), expected[300 * 512 + 7]);
        // Zoomed-out views come from mipmaps, not the full frame.
        QVERIFY(!ctx.frame()->mipmaps.empty() || std::max(ctx.image()->width(), ctx.image()->height()) <= 512);
    }
    // Issue: a float FITS image, then an 8-bit one. The display dock used to turn the first image's limits
    // into manual ones for the second (changing the boxes' decimals fired their value signal), so an 8-bit
    // image was drawn with limits 179..859: all black. The new image gets its own limits from the mode.
    void floatThenEightBitIsNotBlack_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("percentile") << static_cast<int>(LimitsMode::Percentile);
        QTest::newRow("zscale") << static_cast<int>(LimitsMode::ZScale);
        QTest::newRow("minmax") << static_cast<int>(LimitsMode::MinMax);
    }
    void floatThenEightBitIsNotBlack() {
        QFETCH(int, mode);
        MainWindow window(quiet());
        window.show();
        ui::AppContext& ctx = window.context();
        std::mt19937 rng(3);
        ctx.setImage(test::randomFloatImage(300, 200, 179.0, 859.0, rng), QStringLiteral("float.fits"));
        GLINT_WAIT_FOR_IMAGE(window);
        DisplaySettings s = ctx.displaySettings();
        s.limits = static_cast<LimitsMode>(mode);
        ctx.setDisplaySettings(s);
        ctx.applyDisplayToAll(); // the mode carries over only when asked to (issue 34); the limits never
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(ctx.displayLimits().low >= 179.0);

        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(static_cast<int>(ctx.displaySettings().limits), mode); // not switched to manual
        const DisplayLimits l = ctx.displayLimits();
        QVERIFY2(l.low < 150.0 && l.high <= 255.0 && l.high > l.low,
                 qPrintable(QString("limits %1 .. %2 on an 8-bit image").arg(l.low).arg(l.high)));
        const test::PictureStats stats = test::pictureStats(ctx.frame()->pixels);
        QVERIFY2(stats.distinctColours > 16, qPrintable(QString("%1 grey levels drawn").arg(stats.distinctColours)));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiWindow)
#include "test_gui_window.moc"
