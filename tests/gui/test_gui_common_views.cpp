// Common component in the window, images A and B: two overlapping crops of the aerial sample opened as A and
// B, the search run from the Analyze menu, its answer equal to `glint-cli common A B --json -` and to the
// construction, the tint on the right pixels of both images side by side and blended, switching views; B
// going with its analysis, B's own display limits, B in A's orientation, colour files drawn in colour, and
// B from a drop or a load failure.
#include "tests/gui/test_gui_common_support.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/io/ImageLoader.h"
#include "ui/StatusReadout.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/docks/ResultsDock.h"
#include "ui/export/ExportActions.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/CommonComponentLayers.h"
#include "ui/modules/CommonComponentModule.h"
#include "ui/modules/CommonComponentPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QSignalSpy>
#include <QSlider>
#include <QThreadPool>
#include <QToolButton>

#include <algorithm>
#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::common;

namespace {

// The crops cut from aero.png (512 × 512): A at (40, 30), B at (180, 150), so A(x, y) = B(x - 140, y - 120).
const QRect kCropA(40, 30, 300, 260);
const QRect kCropB(180, 150, 280, 300);

Image crop(const Image& source, const QRect& r) {
    std::vector<std::uint8_t> samples;
    samples.reserve(static_cast<std::size_t>(r.width()) * r.height());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) samples.push_back(static_cast<std::uint8_t>(source.value(x, y)));
    return Image::fromSamples<std::uint8_t>(r.width(), r.height(), std::move(samples));
}

// Writes an 8-bit image as a grey PNG (what a user would have on disk).
QString writePng(const Image& image, const QString& name) {
    QImage picture(image.width(), image.height(), QImage::Format_Grayscale8);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) picture.scanLine(y)[x] = static_cast<uchar>(image.value(x, y));
    const QString path = QDir(test::tempDir()).filePath(name);
    if (!picture.save(path, "PNG")) qFatal("cannot write %s", qPrintable(path));
    return path;
}

// The grabbed canvas colour at the centre of a canvas image pixel.
QRgb canvasColour(const QImage& grab, const ImageCanvas& canvas, QPoint pixel) {
    const QPointF w = canvas.view().imageToWidget(QPointF(pixel));
    const double dpr = grab.devicePixelRatio();
    return grab.pixel(static_cast<int>(w.x() * dpr), static_cast<int>(w.y() * dpr));
}
// Cyan tint over grey: blue well above red.
bool tinted(QRgb c) { return qBlue(c) - qRed(c) > 60; }

// GLINT_SCREENSHOT_DIR=DIR: pictures of the window to look at.
void saveScreenshot(QWidget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("GLINT_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QCoreApplication::processEvents();
    widget.grab().save(QDir(dir).filePath(name));
}

} // namespace

class TestGuiCommonViews : public QObject {
    Q_OBJECT

private:
    QString pathA_, pathB_;

private slots:
    void initTestCase() {
        const Image aero = loadImage(test::samplePath(QStringLiteral("aero.png")).toStdString());
        QCOMPARE(aero.width(), 512);
        pathA_ = writePng(crop(aero, kCropA), QStringLiteral("aero-a.png"));
        pathB_ = writePng(crop(aero, kCropB), QStringLiteral("aero-b.png"));
    }

    void aerialCropsEndToEnd() {
        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1400, 900)));
        auto* module = test::findModule<CommonComponentModule>(window);
        QVERIFY(module);
        // File ▸ Open Second Image and Analyze ▸ Find are there.
        QVERIFY(test::menuNamed(window, QStringLiteral("File"))->actions().contains(module->fileActions().first()));
        QVERIFY(test::menuNamed(window, QStringLiteral("Analyze"))->actions().contains(module->actions().first()));

        window.openFile(pathA_);
        GLINT_WAIT_FOR_IMAGE(window);
        QSignalSpy changed(module, &CommonComponentModule::secondImageChanged);
        module->openSecondImage(pathB_);
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown(), 30000);
        QCOMPARE(changed.count(), 1);
        QVERIFY(module->panel()->secondImageLabel()->text().contains(QStringLiteral("280 × 300")));

        // Side by side: B right of A, with the gap of the CLI's overlay, and fit-to-window shows both.
        ImageCanvas* canvas = window.canvas();
        const QPoint sideBySide(300 + 5, 0);
        QCOMPARE(module->secondPlacement(), sideBySide);
        QCOMPARE(module->secondLayer()->placement(), sideBySide);
        QCOMPARE(canvas->extraContent(), QRectF(304.5, -0.5, 280, 300));
        QVERIFY(canvas->view().imageToWidget(QPointF(584, 299)).x() <= canvas->width());

        // Run it as a user does: backend from the panel, Analyze ▸ Find Common Component.
        CommonComponentPanel* panel = module->panel();
        panel->backendBox()->setCurrentText(QStringLiteral("cpu"));
        QCOMPARE(module->backend(), Backend::Cpu);
        // The tolerance reads as a number, not "0.000000"; typed decimals are kept.
        QCOMPARE(panel->toleranceBox()->text(), QStringLiteral("0"));
        panel->toleranceBox()->setValue(2.5);
        QCOMPARE(panel->toleranceBox()->text(), QStringLiteral("2.5"));
        panel->toleranceBox()->setValue(0.000125);
        QCOMPARE(panel->parameters().tolerance, 0.000125);
        panel->toleranceBox()->setValue(0.0);
        QSignalSpy shown(module, &CommonComponentModule::resultShown);
        QSignalSpy failed(window.context().jobs(), &JobRunner::failed);
        module->actions().first()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 60000);
        QCOMPARE(failed.count(), 0);
        const CommonComponentResult& r = *module->result();
        QVERIFY(r.found);

        // The same answer as the command line, and as the construction.
        // The window normalises B linearly by default.
        QCOMPARE(module->parameters().normalize, CommonNormalize::Linear);
        const test::CliResult cli = test::runCli({QStringLiteral("common"), pathA_, pathB_, QStringLiteral("--normalize"),
                                                  QStringLiteral("linear"), QStringLiteral("--json"), QStringLiteral("-")});
        QCOMPARE(cli.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(cli.out).object();
        QCOMPARE(r.dx, doc[QStringLiteral("offset")].toObject()[QStringLiteral("dx")].toInt());
        QCOMPARE(r.dy, doc[QStringLiteral("offset")].toObject()[QStringLiteral("dy")].toInt());
        QCOMPARE(static_cast<qint64>(r.size), doc[QStringLiteral("size")].toInteger());
        const QJsonObject bbox = doc[QStringLiteral("bbox")].toObject();
        QCOMPARE(QRect(r.bboxX, r.bboxY, r.bboxWidth, r.bboxHeight),
                 QRect(bbox[QStringLiteral("x")].toInt(), bbox[QStringLiteral("y")].toInt(),
                       bbox[QStringLiteral("width")].toInt(), bbox[QStringLiteral("height")].toInt()));
        QCOMPARE(r.dx, kCropA.x() - kCropB.x());
        QCOMPARE(r.dy, kCropA.y() - kCropB.y());
        QCOMPARE(r.size, std::uint64_t(160 * 140));

        // The results dock row: offset, size, box.
        ResultsModel* model = module->model();
        QVERIFY(model);
        QCOMPARE(window.resultsDock()->currentModel(), model);
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->value(0, 1).toInt(), r.dx);
        QCOMPARE(model->value(0, 2).toInt(), r.dy);
        QCOMPARE(model->value(0, 3).toULongLong(), r.size);
        QCOMPARE(model->value(0, 4).toInt(), r.bboxX);
        QCOMPARE(model->value(0, 7).toInt(), r.bboxHeight);
        // The placement in words, with the confidence.
        QVERIFY(r.confidence.reliable);
        const QString summary = panel->summaryLabel()->text();
        QVERIFY2(summary.contains(QStringLiteral("B's top-left sits at (140, 120) in A")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("coverage")) && summary.contains(QStringLiteral("runner-up")) &&
                     summary.contains(QStringLiteral("phase-correlation peak")),
                 qPrintable(summary));
        QCOMPARE(model->value(0, 10).toString(), QStringLiteral("B's top-left sits at (140, 120) in A"));

        // One timing record with the job's named steps.
        const auto& records = window.context().timingLog()->records();
        QCOMPARE(records.size(), std::size_t(1));
        QCOMPARE(records[0].algorithm, module->name());
        QCOMPARE(records[0].backend, QStringLiteral("cpu"));
        QVERIFY(!records[0].steps.empty());
        QVERIFY(records[0].parameters.contains(QStringLiteral("tolerance=0")));

        // The tint: A at the component's pixels, B at those pixels + offset (in the canvas, + B's placement).
        ComponentLayer* onA = module->componentLayerA();
        ComponentLayer* onB = module->componentLayerB();
        QVERIFY(onA && onB);
        const auto checkTints = [&](QPoint placementB) {
            for (int y = -1; y <= 260; ++y)
                for (int x = -1; x <= 300; ++x)
                    if (onA->isSet(x, y) != inComponent(r, x, y)) return false;
            for (int y = -1; y <= 300; ++y)
                for (int x = -1; x <= 280; ++x)
                    if (onB->isSet(placementB.x() + x, placementB.y() + y) != inComponent(r, x - r.dx, y - r.dy)) return false;
            return true;
        };
        QVERIFY(checkTints(sideBySide));
        QCOMPARE(onA->canvasBox(), QRect(140, 120, 160, 140));
        QCOMPARE(onB->canvasBox(), QRect(305, 0, 160, 140));
        // The outline of the rectangular overlap: its four pixel-edge sides.
        QCOMPARE(onA->outline().size(), 4);
        QCOMPARE(onA->outline().first(), QLineF(139.5, 119.5, 299.5, 119.5));
        QCOMPARE(onB->outline().first(), QLineF(304.5, -0.5, 464.5, -0.5));
        // ... and painted there: tinted inside on both, untouched grey outside.
        canvas->repaint();
        QImage grab = canvas->grab().toImage();
        QVERIFY(tinted(canvasColour(grab, *canvas, {220, 190})));
        QVERIFY(tinted(canvasColour(grab, *canvas, {305 + 80, 70})));
        QVERIFY(!tinted(canvasColour(grab, *canvas, {60, 60})));
        QVERIFY(!tinted(canvasColour(grab, *canvas, {305 + 200, 250})));
        // The results row and the component are linked: selecting the row selects it on both images.
        window.resultsDock()->selectRow(0);
        QCOMPARE(onA->selected(), 0);
        QCOMPARE(onB->selected(), 0);
        saveScreenshot(window, QStringLiteral("common-side-by-side.png"));
        // The panel reads B under the cursor.
        const QString expected = QStringLiteral("x 80  y 70  value %1").arg(module->secondImage()->value(80, 70));
        QTRY_VERIFY2(test::hoverImagePoint(canvas, QPointF(305 + 80, 70),
                                           [&] { return panel->cursorLabel()->text().contains(expected); }),
                     qPrintable(panel->cursorLabel()->text()));

        // Blended: B over A at (-dx, -dy); the tints on A and on B then cover the same canvas pixels.
        QToolButton* blendButton = nullptr;
        for (QToolButton* b : panel->findChildren<QToolButton*>())
            if (b->defaultAction() == module->actions().at(3)) blendButton = b;
        QVERIFY(blendButton);
        QVERIFY(!panel->opacitySlider()->isEnabled());
        blendButton->click();
        QCOMPARE(module->view(), CommonComponentModule::View::Blend);
        QVERIFY(panel->opacitySlider()->isEnabled());
        const QPoint blended(140, 120);
        QCOMPARE(module->secondLayer()->placement(), blended);
        QCOMPARE(module->secondLayer()->opacity(), 0.5);
        QVERIFY(checkTints(blended));
        QCOMPARE(onB->canvasBox(), onA->canvasBox());
        QVERIFY(onA->isTintShown() && !onB->isTintShown()); // one tint where both lie
        QCOMPARE(canvas->extraContent(), QRectF(139.5, 119.5, 280, 300));
        panel->opacitySlider()->setValue(80);
        QCOMPARE(module->secondLayer()->opacity(), 0.8);
        canvas->repaint();
        grab = canvas->grab().toImage();
        QVERIFY(tinted(canvasColour(grab, *canvas, {220, 190})));
        // Where only B lies (right of and below A), B's picture is drawn, not the canvas background.
        const QRgb bOnly = canvasColour(grab, *canvas, {400, 380});
        QVERIFY2(bOnly != qRgb(58, 58, 58), "B is not drawn beyond A");
        saveScreenshot(window, QStringLiteral("common-blended.png"));
        saveScreenshot(*panel, QStringLiteral("common-panel.png"));

        // And back.
        module->actions().at(2)->trigger();
        QCOMPARE(module->view(), CommonComponentModule::View::SideBySide);
        QCOMPARE(module->secondLayer()->placement(), sideBySide);
        QCOMPARE(module->secondLayer()->opacity(), 1.0);
        QVERIFY(checkTints(sideBySide));
        QVERIFY(onB->isTintShown());

        // A new A closes the analysis: the result (tints, results) and image B go, nothing is drawn beside it.
        QSignalSpy closed(module, &CommonComponentModule::secondImageChanged);
        window.openFile(test::samplePath(QStringLiteral("synthetic-mammogram.png")));
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(!module->result());
        QVERIFY(!module->secondImage());
        QVERIFY(module->secondImagePath().isEmpty());
        QCOMPARE(closed.count(), 1);
        QVERIFY(!module->componentLayerA() && !module->componentLayerB() && !module->secondLayer());
        for (OverlayLayer* layer : window.context().layers()->layers())
            QVERIFY2(!qobject_cast<SecondImageLayer*>(layer) && !qobject_cast<ComponentLayer*>(layer), qPrintable(layer->name()));
        QVERIFY(canvas->extraContent().isEmpty());
        QCOMPARE(window.resultsDock()->resultSetCount(), 0);
        QVERIFY(panel->secondImageLabel()->text().startsWith(QStringLiteral("None yet")));
        // Find then asks for B again.
        QVERIFY(!module->run());
        QVERIFY(panel->summaryLabel()->text().contains(QStringLiteral("Open image B first")));
    }

    // B belongs to the analysis: removing its layer or the component's closes it; a B opened before any A
    // is kept for the A opened next.
    void secondImageGoesWithItsAnalysis() {
        MainWindow window({false, false});
        window.show();
        std::mt19937 rng(8);
        auto* module = test::findModule<CommonComponentModule>(window);
        module->setSecondImage(test::randomIntImage(12, 10, 0, 3, rng), QStringLiteral("B first"));
        QVERIFY(module->secondImage());
        window.context().setImage(test::randomIntImage(16, 12, 0, 3, rng), QStringLiteral("A"));
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(module->secondImage()); // adopted by the first A
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown(), 10000);
        QCOMPARE(module->secondPlacement(), QPoint(16 + 4, 0));

        // Layers ▸ Remove on image B closes it.
        window.context().layers()->remove(module->secondLayer());
        QVERIFY(!module->secondImage());
        QVERIFY(!module->secondLayer());
        QVERIFY(window.canvas()->extraContent().isEmpty());

        // Layers ▸ Remove on the component closes the analysis: result and B.
        module->setSecondImage(test::randomIntImage(12, 10, 0, 3, rng), QStringLiteral("B"));
        module->setBackend(Backend::Cpu);
        QVERIFY(runAndWaitShown(module, 30000));
        QVERIFY(module->result() && module->result()->found);
        window.context().layers()->remove(module->componentLayerA());
        QVERIFY(!module->result());
        QVERIFY(!module->componentLayerB());
        QVERIFY(!module->secondImage() && !module->secondLayer());

        // A new image B replaces the old one and its result.
        module->setSecondImage(test::randomIntImage(12, 10, 0, 3, rng), QStringLiteral("B1"));
        QVERIFY(runAndWaitShown(module, 30000));
        module->setSecondImage(test::randomIntImage(8, 6, 0, 3, rng), QStringLiteral("B2"));
        QVERIFY(!module->result() && !module->componentLayerA());
        QCOMPARE(module->secondImagePath(), QStringLiteral("B2"));
        int secondLayers = 0;
        for (OverlayLayer* layer : window.context().layers()->layers())
            secondLayers += qobject_cast<SecondImageLayer*>(layer) != nullptr;
        QCOMPARE(secondLayers, 1);

        // A B still loading when a new A opens is not shown.
        module->openSecondImage(pathB_);
        window.context().setImage(test::randomIntImage(16, 12, 0, 3, rng), QStringLiteral("A2"));
        QVERIFY(!module->secondImage() && !module->isLoadingSecond());
        QVERIFY(QThreadPool::globalInstance()->waitForDone(30000)); // the load has finished ...
        QCoreApplication::processEvents();                          // ... and its answer was delivered
        QVERIFY(!module->secondImage());
        QVERIFY(!module->secondLayer());
    }

    // B is drawn with A's kind of display settings and its own limits.
    void secondImageHasItsOwnLimits() {
        MainWindow window({false, false});
        window.show();
        std::mt19937 rng(3);
        window.context().setImage(test::randomIntImage(40, 30, 0, 255, rng), QStringLiteral("A"));
        GLINT_WAIT_FOR_IMAGE(window);
        DisplaySettings s = window.context().displaySettings();
        s.limits = LimitsMode::MinMax;
        window.context().setDisplaySettings(s);
        auto* module = test::findModule<CommonComponentModule>(window);
        module->setSecondImage(test::randomIntImage(30, 20, 1000, 5000, rng), QStringLiteral("B"));
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown(), 10000);
        const auto frame = module->secondLayer()->frame();
        QCOMPARE(frame->settings.limits, LimitsMode::MinMax);
        QCOMPARE(frame->limits.low, computeStats(*module->secondImage()).min);
        QCOMPARE(frame->limits.high, computeStats(*module->secondImage()).max);
        // A change of A's settings renders B again with them (its own limits still).
        s.limits = LimitsMode::Percentile;
        s.percentile = 90.0;
        window.context().setDisplaySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown() && module->secondLayer()->frame()->settings.limits ==
                                                                     LimitsMode::Percentile, 10000);
        QCOMPARE(module->secondLayer()->frame()->limits.high, computeLimits(*module->secondImage(), s).high);
    }

    // B keeps A's orientation whatever its own y-up flag (the offset relates stored rows): with A shown
    // y-up (FITS), B's stored row 0 is drawn at the bottom beside A's row 0.
    void secondImageFollowsTheCanvasOrientation_data() {
        test::columns<bool, bool>({"aYUp", "bYUp"});
        QTest::newRow("both y-up") << true << true;
        QTest::newRow("A y-up, B not") << true << false;
        QTest::newRow("B y-up, A not") << false << true;
        QTest::newRow("neither") << false << false;
    }

    void secondImageFollowsTheCanvasOrientation() {
        QFETCH(bool, aYUp);
        QFETCH(bool, bYUp);
        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(900, 700)));
        Image a(10, 8, SampleType::UInt8);
        a.meta.displayYUp = aYUp;
        window.context().setImage(std::move(a), QStringLiteral("A"));
        GLINT_WAIT_FOR_IMAGE(window);
        std::vector<std::uint8_t> samples(6 * 5, 0);
        samples[2] = 255; // B(2, 0)
        Image b = Image::fromSamples<std::uint8_t>(6, 5, std::move(samples));
        b.meta.displayYUp = bYUp;
        auto* module = test::findModule<CommonComponentModule>(window);
        module->setSecondImage(std::move(b), QStringLiteral("B"));
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown(), 10000);
        const QPoint placement = module->secondPlacement();
        QCOMPARE(placement, QPoint(14, 0));
        ImageCanvas* canvas = window.canvas();
        canvas->repaint();
        const QImage grab = canvas->grab().toImage();
        QVERIFY(qGray(canvasColour(grab, *canvas, placement + QPoint(2, 0))) > 200);
        QVERIFY(qGray(canvasColour(grab, *canvas, placement + QPoint(2, 4))) < 50);
        QVERIFY(qGray(canvasColour(grab, *canvas, placement + QPoint(3, 0))) < 50);
        // And row 0 is where A's row 0 is drawn: the bottom of the picture when A is y-up.
        const double row0 = canvas->view().imageToWidget(QPointF(16, 0)).y();
        const double row4 = canvas->view().imageToWidget(QPointF(16, 4)).y();
        QCOMPARE(row0 > row4, aYUp);
    }

    // Colour files are compared by their luminance but drawn in colour: A, image B beside it, and both with
    // the component found on them; a chosen colormap draws the luminance.
    void colourPairIsDrawnInColour() {
        // A scene of 8 × 8 blocks of random colours; A and B are crops of it that overlap at an offset that
        // cuts through blocks, written as RGB PNGs.
        std::mt19937 rng(16);
        std::uniform_int_distribution<int> channel(0, 255);
        QImage scene(240, 200, QImage::Format_RGB888);
        std::vector<QRgb> blocks((240 / 8) * (200 / 8));
        for (QRgb& c : blocks) c = qRgb(channel(rng), channel(rng), channel(rng));
        for (int y = 0; y < scene.height(); ++y)
            for (int x = 0; x < scene.width(); ++x) scene.setPixel(x, y, blocks[static_cast<std::size_t>(y / 8) * 30 + x / 8]);
        const QRect cropA(0, 0, 160, 120), cropB(37, 29, 170, 140);
        const QString pathA = QDir(test::tempDir()).filePath(QStringLiteral("colour-a.png"));
        const QString pathB = QDir(test::tempDir()).filePath(QStringLiteral("colour-b.png"));
        QVERIFY(scene.copy(cropA).save(pathA, "PNG") && scene.copy(cropB).save(pathB, "PNG"));

        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1400, 900)));
        window.openFile(pathA);
        GLINT_WAIT_FOR_IMAGE(window);
        auto image = window.context().image();
        QVERIFY(image->meta.wasColour); // analysed as luminance ...
        QCOMPARE(image->sampleType(), SampleType::UInt8);
        auto* module = test::findModule<CommonComponentModule>(window);
        module->openSecondImage(pathB);
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown(), 30000);

        // ... drawn in colour: each frame pixel is its file pixel's R, G, B through the luminance's limits.
        const auto colourOf = [](const DisplayFrame& frame, const QImage& file) {
            if (!frame.colour || frame.pixels.size() != file.size()) return 0.0;
            const DisplayRenderer renderer(*frame.image, frame.settings, frame.limits);
            const auto level = [&](int v) { return static_cast<int>(renderer.colourOf(v) & 0xFF); };
            int same = 0, coloured = 0;
            for (int y = 0; y < file.height(); ++y)
                for (int x = 0; x < file.width(); ++x) {
                    const QRgb f = file.pixel(x, y), d = frame.pixels.pixel(x, y);
                    same += qRed(d) == level(qRed(f)) && qGreen(d) == level(qGreen(f)) && qBlue(d) == level(qBlue(f));
                    coloured += std::max({qRed(d), qGreen(d), qBlue(d)}) - std::min({qRed(d), qGreen(d), qBlue(d)}) > 40;
                }
            return same == file.width() * file.height() ? static_cast<double>(coloured) / same : 0.0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(window.context().frame() && window.context().frame()->image == image, 10000);
        QVERIFY(colourOf(*window.context().frame(), scene.copy(cropA)) > 0.5);
        QVERIFY(colourOf(*module->secondLayer()->frame(), scene.copy(cropB)) > 0.5);

        // On the canvas, and after the run (on luminance) with the component drawn over both.
        module->setBackend(Backend::Cpu);
        QVERIFY(runAndWaitShown(module, 60000));
        const CommonComponentResult& r = *module->result();
        QVERIFY(r.found);
        QCOMPARE(QPoint(r.dx, r.dy), cropA.topLeft() - cropB.topLeft());
        QCOMPARE(r.size, std::uint64_t((160 - 37) * (120 - 29)));
        ImageCanvas* canvas = window.canvas();
        canvas->repaint();
        const QImage grab = canvas->grab().toImage();
        const auto colouredShare = [&](QPoint origin, QRect area) { // block centres of a crop, outside the component
            int coloured = 0, count = 0;
            for (int by = 0; by < 200 / 8; ++by)
                for (int bx = 0; bx < 240 / 8; ++bx) {
                    const QPoint scenePixel(bx * 8 + 4, by * 8 + 4);
                    if (!area.contains(scenePixel)) continue;
                    const QRgb c = canvasColour(grab, *canvas, origin + scenePixel - area.topLeft());
                    ++count;
                    coloured += std::max({qRed(c), qGreen(c), qBlue(c)}) - std::min({qRed(c), qGreen(c), qBlue(c)}) > 40;
                }
            return count ? static_cast<double>(coloured) / count : 0.0;
        };
        const QRect aOutside(0, 0, 160, 29); // A's rows above the overlap
        QVERIFY(colouredShare({0, 0}, aOutside) > 0.5);
        const QRect bOutside(160, 29, 47, 140); // B's columns right of the overlap (scene coordinates)
        QVERIFY(colouredShare(module->secondPlacement() + QPoint(160 - 37, 0), bOutside) > 0.5);
        // The readout gives the luminance and the file's R, G, B.
        const QPoint probe(10, 12);
        const QRgb fileRgb = scene.pixel(probe);
        const QString rgbText = QStringLiteral("(luminance; RGB %1, %2, %3)").arg(qRed(fileRgb)).arg(qGreen(fileRgb)).arg(qBlue(fileRgb));
        QTRY_VERIFY2(test::hoverImagePoint(canvas, QPointF(probe), [&] { return window.readout()->valueText().endsWith(rgbText); }),
                     qPrintable(window.readout()->valueText()));
        QVERIFY(window.readout()->valueText().startsWith(QStringLiteral("value %1 ").arg(image->value(probe.x(), probe.y()))));
        saveScreenshot(window, QStringLiteral("common-colour.png"));
        // File ▸ Export View as PNG keeps the colour (A and B beside it, at 1:1).
        const QString exported = QDir(test::tempDir()).filePath(QStringLiteral("colour-view.png"));
        QVERIFY(window.exports()->exportViewPng(exported));
        const QImage view(exported);
        QVERIFY(!view.isNull());
        const auto chroma = [](QRgb c) { return std::max({qRed(c), qGreen(c), qBlue(c)}) - std::min({qRed(c), qGreen(c), qBlue(c)}); };
        QPoint vivid(4, 4); // the most colourful block of A's first row (untinted: above the overlap)
        for (int x = 4; x < 160; x += 8)
            if (chroma(scene.pixel(x, 4)) > chroma(scene.pixel(vivid))) vivid = QPoint(x, 4);
        QVERIFY2(chroma(view.pixel(vivid)) > chroma(scene.pixel(vivid)) / 2,
                 qPrintable(QStringLiteral("%1 for %2").arg(view.pixel(vivid), 0, 16).arg(scene.pixel(vivid), 0, 16)));

        // A colormap draws the luminance.
        DisplaySettings s = window.context().displaySettings();
        s.colormap = Colormap::Heat;
        window.context().setDisplaySettings(s);
        QTRY_VERIFY_WITH_TIMEOUT(!window.context().isRendering(), 10000);
        QVERIFY(!window.context().frame()->colour);
        QTRY_VERIFY_WITH_TIMEOUT(module->isSecondImageShown() && module->secondLayer()->frame()->settings.colormap == Colormap::Heat, 10000);
        QVERIFY(!module->secondLayer()->frame()->colour);
    }

    // B dropped on the panel is opened; a file that cannot be read leaves B as it was, with a message.
    void dropAndLoadFailure() {
        MainWindow window({false, false});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* module = test::findModule<CommonComponentModule>(window);
        CommonComponentPanel* panel = module->panel();
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(pathB_)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(panel, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(panel, &drop);
        QTRY_VERIFY_WITH_TIMEOUT(module->secondImage() && !module->isLoadingSecond(), 10000);
        QCOMPARE(module->secondImagePath(), pathB_);
        QCOMPARE(module->secondImage()->width(), 280);

        QSignalSpy failed(module, &CommonComponentModule::secondImageFailed);
        const QString missing = QDir(test::tempDir()).filePath(QStringLiteral("no-such-image.png"));
        module->openSecondImage(missing);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QVERIFY(!failed.at(0).at(1).toString().isEmpty());
        QCOMPARE(module->secondImagePath(), pathB_);
        QVERIFY(panel->summaryLabel()->text().startsWith(QStringLiteral("Cannot open image B")));
        // Without A the search says what is missing instead of starting.
        QVERIFY(!module->run());
    }
};

GLINT_GUI_TEST_MAIN(TestGuiCommonViews)
#include "test_gui_common_views.moc"
