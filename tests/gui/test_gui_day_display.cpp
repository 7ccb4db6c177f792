// Issue 34, "the window for a day's work", the display part, driven through the real window (offscreen):
//  - display settings belong to their image: zscale + asinh chosen for a FITS frame are not applied to an
//    aerial photo opened next, nor saved as the default; reopened, the frame has its own settings again;
//    "Apply to All Images" does carry them, and keeps them as the default;
//  - the HDU chooser of a multi-extension FITS file (HST, 4 HDUs): HDU 2 opened from the window, and the
//    file opened again at HDU 2; planes of a cube and frames of a DICOM file likewise; an HDU without an
//    image: a message, the current image stays;
//  - what the CLI reads the window shows: values near ±1.7e308 (FITS) and a DICOM rescale to them.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/display/Histogram.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "ui/display/HistogramWidget.h"
#include "ui/display/ImagePartChooser.h"
#include "ui/docks/DisplayDock.h"

#include <QComboBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace glint;
using namespace glint::ui;

namespace {

MainWindowOptions quiet() { return {false, false}; }

bool openAndWait(MainWindow& window, const QString& path) {
    window.openFile(path);
    return QTest::qWaitFor([&] { return test::imageShown(window.context()) && window.context().imagePath() == path; }, 30000);
}

// ---- a FITS file of doubles (BITPIX -64), written byte by byte as test_hostile_values does ----------------
std::string card(const std::string& key, const std::string& value) {
    std::string c = key;
    c.resize(8, ' ');
    c += "= ";
    std::string v = value;
    if (v.size() < 20) v = std::string(20 - v.size(), ' ') + v;
    c += v;
    c.resize(80, ' ');
    return c;
}

QByteArray doubleFits(int width, int height, const std::vector<double>& values) {
    std::string h;
    for (const auto& c : {card("SIMPLE", "T"), card("BITPIX", "-64"), card("NAXIS", "2"),
                          card("NAXIS1", std::to_string(width)), card("NAXIS2", std::to_string(height))})
        h += c;
    std::string end = "END";
    end.resize(80, ' ');
    h += end;
    h.resize((h.size() + 2879) / 2880 * 2880, ' ');
    QByteArray b(h.data(), static_cast<qsizetype>(h.size()));
    for (double v : values) {
        std::uint64_t u = 0;
        std::memcpy(&u, &v, 8);
        for (int s = 56; s >= 0; s -= 8) b.append(static_cast<char>((u >> s) & 0xFF));
    }
    b.append(QByteArray((2880 - b.size() % 2880) % 2880, '\0'));
    return b;
}

// ---- a DICOM file: explicit VR little endian, 8-bit signed monochrome, with a Rescale Slope ---------------
void le16(QByteArray& b, std::uint32_t v) {
    b.append(static_cast<char>(v & 0xFF));
    b.append(static_cast<char>((v >> 8) & 0xFF));
}
QByteArray element(std::uint16_t group, std::uint16_t tag, const char* vr, QByteArray value) {
    const bool ob = std::strcmp(vr, "OB") == 0;
    if (value.size() % 2) value.append(std::strcmp(vr, "UI") == 0 || ob ? '\0' : ' ');
    QByteArray b;
    le16(b, group);
    le16(b, tag);
    b.append(vr, 2);
    if (ob) {
        le16(b, 0);
        le16(b, static_cast<std::uint32_t>(value.size()) & 0xFFFF);
        le16(b, static_cast<std::uint32_t>(value.size()) >> 16);
    } else {
        le16(b, static_cast<std::uint32_t>(value.size()));
    }
    return b + value;
}
QByteArray us(std::uint16_t v) {
    QByteArray b;
    le16(b, v);
    return b;
}
// 4 × 3 pixels −120, −100, …, 100 (signed), times `slope`.
QByteArray rescaledDicom(const QByteArray& slope) {
    QByteArray b(128, '\0');
    b.append("DICM");
    b += element(0x0002, 0x0001, "OB", QByteArray("\0\1", 2));
    b += element(0x0002, 0x0002, "UI", "1.2.840.10008.5.1.4.1.1.7");
    b += element(0x0002, 0x0003, "UI", "1.2.3.4.5.6.7");
    b += element(0x0002, 0x0010, "UI", "1.2.840.10008.1.2.1");
    b += element(0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.7");
    b += element(0x0008, 0x0018, "UI", "1.2.3.4.5.6.7");
    b += element(0x0028, 0x0002, "US", us(1));
    b += element(0x0028, 0x0004, "CS", "MONOCHROME2");
    b += element(0x0028, 0x0010, "US", us(3));
    b += element(0x0028, 0x0011, "US", us(4));
    b += element(0x0028, 0x0100, "US", us(8));
    b += element(0x0028, 0x0101, "US", us(8));
    b += element(0x0028, 0x0102, "US", us(7));
    b += element(0x0028, 0x0103, "US", us(1));
    b += element(0x0028, 0x1052, "DS", "0");
    b += element(0x0028, 0x1053, "DS", slope);
    QByteArray pixels;
    for (int i = 0; i < 12; ++i) pixels.append(static_cast<char>(static_cast<std::int8_t>(-120 + 20 * i)));
    b += element(0x7FE0, 0x0010, "OB", pixels);
    return b;
}

// The window shows the file: an image, a frame of more than one colour, finite limits and a histogram.
void expectShown(MainWindow& window, const QString& path, const Image& read) {
    QSignalSpy failed(&window.context(), &AppContext::loadFailed);
    window.openFile(path);
    QVERIFY2(QTest::qWaitFor([&] { return test::imageShown(window.context()) && window.context().imagePath() == path; }, 30000) ||
                 !failed.isEmpty(),
             "neither shown nor refused");
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().at(1).toString()));
    AppContext& ctx = window.context();
    QCOMPARE(ctx.image()->width(), read.width());
    QCOMPARE(ctx.loaded().stats.max, computeStats(read).max);
    const DisplayLimits l = ctx.displayLimits();
    QVERIFY2(std::isfinite(l.low) && std::isfinite(l.high) && l.high > l.low, qPrintable(QStringLiteral("%1 .. %2").arg(l.low).arg(l.high)));
    const Histogram& h = ctx.loaded().histogram;
    QVERIFY(!h.counts.empty());
    QVERIFY(std::isfinite(h.low) && std::isfinite(h.high) && std::isfinite(h.binWidth()) && h.binWidth() > 0.0);
    std::uint64_t counted = h.below + h.above;
    for (auto c : h.counts) counted += c;
    QCOMPARE(counted, static_cast<std::uint64_t>(computeStats(read).count));
    QVERIFY2(test::pictureStats(ctx.frame()->pixels).distinctColours > 2, "the frame is flat");
    // The dock's own histogram (zoomed to the limits) is computed as well.
    QTRY_VERIFY_WITH_TIMEOUT(!window.displayDock()->histogramPending(), 30000);
    HistogramWidget* plot = window.displayDock()->histogram();
    QVERIFY(!plot->histogram().counts.empty());
    const double left = plot->valueToX(plot->histogram().low), right = plot->valueToX(plot->histogram().high);
    QVERIFY(std::isfinite(left) && right > left);
    // Every bin drawn where it belongs: finite edges in order, on the plot.
    const Histogram& shown = plot->histogram();
    for (std::size_t i = 0; i < shown.counts.size(); ++i) {
        const double x0 = plot->valueToX(shown.binLow(i)), x1 = plot->valueToX(shown.binHigh(i));
        QVERIFY2(std::isfinite(shown.binLow(i)) && shown.binHigh(i) > shown.binLow(i) && x0 >= left - 1e-6 && x1 <= right + 1e-6,
                 qPrintable(QStringLiteral("bin %1: %2 .. %3 at x %4 .. %5").arg(i).arg(shown.binLow(i)).arg(shown.binHigh(i)).arg(x0).arg(x1)));
    }
    // Across the whole plot (where the transfer curve is drawn) every position is a finite value, in order.
    double last = -std::numeric_limits<double>::infinity();
    for (int k = 0; k <= 40; ++k) {
        const double v = plot->xToValue(left + (right - left) * k / 40.0);
        QVERIFY2(std::isfinite(v) && v >= last, qPrintable(QStringLiteral("at %1/40: %2 after %3").arg(k).arg(v).arg(last)));
        last = v;
    }
}

} // namespace

class TestGuiDayDisplay : public QObject {
    Q_OBJECT

private slots:
    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }

    // zscale + asinh on the FITS frame, then the aerial photo: the photo starts from the defaults, the
    // default is not changed (not in the settings either), and the frame reopened has its own again.
    void settingsStayWithTheirImage() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG files");
        const QString fits = test::samplePath(QStringLiteral("ngc1316o.fit"));
        const QString photo = test::samplePath(QStringLiteral("aero.png"));
        MainWindow window({true, false}); // persisting (to the test settings): nothing may be saved as the default
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        QVERIFY(openAndWait(window, fits));
        DisplayDock* dock = window.displayDock();
        // Chosen in the dock as a user would.
        dock->limitsBox()->setCurrentIndex(dock->limitsBox()->findData(static_cast<int>(LimitsMode::ZScale)));
        dock->scaleBox()->setCurrentIndex(dock->scaleBox()->findData(static_cast<int>(DisplayScale::Asinh)));
        QCOMPARE(window.context().displaySettings().limits, LimitsMode::ZScale);
        QCOMPARE(window.context().displaySettings().scale, DisplayScale::Asinh);
        GLINT_WAIT_FOR_IMAGE(window);
        const DisplayLimits fitsLimits = window.context().displayLimits();

        QVERIFY(openAndWait(window, photo));
        QCOMPARE(window.context().displaySettings().limits, LimitsMode::Percentile);
        QCOMPARE(window.context().displaySettings().scale, DisplayScale::Linear);
        QCOMPARE(dock->scaleBox()->currentData().toInt(), static_cast<int>(DisplayScale::Linear));
        QCOMPARE(window.context().frame()->settings.scale, DisplayScale::Linear);
        QCOMPARE(window.context().preferredDisplay().scale, DisplayScale::Linear);
        QVERIFY(!QSettings().contains(QStringLiteral("displayDefault/scale")) ||
                QSettings().value(QStringLiteral("displayDefault/scale")).toString() == QLatin1String("linear"));
        // The photo's own change stays with the photo.
        dock->colormapBox()->setCurrentIndex(dock->colormapBox()->findData(static_cast<int>(Colormap::Heat)));

        QVERIFY(openAndWait(window, fits));
        QCOMPARE(window.context().displaySettings().limits, LimitsMode::ZScale);
        QCOMPARE(window.context().displaySettings().scale, DisplayScale::Asinh);
        QCOMPARE(window.context().displaySettings().colormap, Colormap::Grey);
        QCOMPARE(window.context().displayLimits().low, fitsLimits.low);
        QVERIFY(openAndWait(window, photo));
        QCOMPARE(window.context().displaySettings().colormap, Colormap::Heat);
        QCOMPARE(window.context().displaySettings().scale, DisplayScale::Linear);
        window.close();
        // A new window (the next start) opens the photo with the defaults too.
        MainWindow again({true, false});
        QCOMPARE(again.context().preferredDisplay().scale, DisplayScale::Linear);
        QCOMPARE(again.context().preferredDisplay().limits, LimitsMode::Percentile);
    }

    // Apply to All Images: the FITS frame's zscale + asinh for the photo opened next (its own limits),
    // for an image seen before with other settings, and as the default of the next start.
    void applyToAllCarries() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG files");
        const QString fits = test::samplePath(QStringLiteral("ngc1316o.fit"));
        const QString photo = test::samplePath(QStringLiteral("aero.png"));
        {
            MainWindow window({true, false});
            QVERIFY(test::showExposed(window, QSize(1280, 800)));
            QVERIFY(openAndWait(window, photo)); // seen first with the defaults: remembered as such
            QVERIFY(openAndWait(window, fits));
            DisplayDock* dock = window.displayDock();
            dock->limitsBox()->setCurrentIndex(dock->limitsBox()->findData(static_cast<int>(LimitsMode::ZScale)));
            dock->scaleBox()->setCurrentIndex(dock->scaleBox()->findData(static_cast<int>(DisplayScale::Asinh)));
            QVERIFY(dock->applyToAllButton()->isEnabled());
            QSignalSpy applied(&window.context(), &AppContext::defaultDisplayChanged);
            QTest::mouseClick(dock->applyToAllButton(), Qt::LeftButton);
            QCOMPARE(applied.count(), 1);
            QCOMPARE(window.context().preferredDisplay().scale, DisplayScale::Asinh);

            QVERIFY(openAndWait(window, photo));
            QCOMPARE(window.context().displaySettings().limits, LimitsMode::ZScale);
            QCOMPARE(window.context().displaySettings().scale, DisplayScale::Asinh);
            QCOMPARE(window.context().frame()->settings.scale, DisplayScale::Asinh);
            const DisplayLimits own = window.context().displayLimits();
            QCOMPARE(own.low, zscaleLimits(*window.context().image()).low); // its own zscale limits
            QCOMPARE(QSettings().value(QStringLiteral("displayDefault/scale")).toString(), QStringLiteral("asinh"));
            QCOMPARE(QSettings().value(QStringLiteral("displayDefault/limits")).toString(), QStringLiteral("zscale"));
            window.close();
        }
        MainWindow again({true, false});
        again.context().setImage(Image::fromSamples<std::uint8_t>(8, 8, std::vector<std::uint8_t>(64, 7)), QStringLiteral("next"));
        QCOMPARE(again.context().displaySettings().scale, DisplayScale::Asinh);
        QCOMPARE(again.context().displaySettings().limits, LimitsMode::ZScale);
    }

    // The HST frame (HDUs 0 primary without data, 1 SCI, 2 ERR, 3 DQ): HDU 2 from the chooser (the keyboard
    // on its list), the same pixels as the CLI's --hdu 2; reopened after another file, HDU 2 again.
    void hduChooserAndMemory() {
        GLINT_REAL_FILE(hst, QStringLiteral("j8bt06nyq_flt.fits"));
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        QVERIFY(openAndWait(window, hst));
        AppContext& ctx = window.context();
        QCOMPARE(ctx.image()->meta.hdu, 1);
        ImagePartChooser* chooser = window.displayDock()->partChooser();
        QVERIFY(chooser->hasChoice());
        QVERIFY(chooser->isVisible());
        QComboBox* box = chooser->hduBox();
        QCOMPARE(box->count(), 4);
        QVERIFY2(box->itemText(0).contains(QLatin1String("no image")), qPrintable(box->itemText(0)));
        QVERIFY2(box->itemText(2).startsWith(QLatin1String("2 ERR")), qPrintable(box->itemText(2)));
        QCOMPARE(box->currentData().toInt(), 1);
        QVERIFY(!chooser->planeBox()->isVisible()); // one plane per HDU

        box->setFocus();
        QTest::keyClick(box, Qt::Key_Down);
        QTRY_VERIFY_WITH_TIMEOUT(ctx.hasImage() && ctx.image()->meta.hdu == 2 && test::imageShown(ctx), 30000);
        QCOMPARE(box->currentData().toInt(), 2);
        LoadOptions two;
        two.hdu = 2;
        const Image cli = loadImage(hst.toStdString(), two);
        QCOMPARE(ctx.loaded().stats.median, computeStats(cli).median);
        QVERIFY(ctx.loaded().stats.median != computeStats(loadImage(hst.toStdString())).median); // not SCI's
        QCOMPARE(ctx.rememberedPart(hst).hdu, 2);

        // Another file, then the HST frame again: HDU 2.
        const QString fits = test::samplePath(QStringLiteral("ngc1316o.fit"));
        QVERIFY(openAndWait(window, fits));
        QVERIFY(!chooser->isVisible()); // one HDU: nothing to choose
        QVERIFY(openAndWait(window, hst));
        QCOMPARE(ctx.image()->meta.hdu, 2);
        QCOMPARE(box->currentData().toInt(), 2);
        // A new choice is remembered too.
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Down);
        QTRY_VERIFY_WITH_TIMEOUT(ctx.image()->meta.hdu == 3 && test::imageShown(ctx), 30000);
        QVERIFY(openAndWait(window, fits));
        QVERIFY(openAndWait(window, hst));
        QCOMPARE(ctx.image()->meta.hdu, 3);
    }

    // A FITS cube's planes and a multi-frame DICOM file's frames: the last one chosen with the keyboard in the
    // chooser's spin box, read as the CLI's --plane / --frame read it, and remembered for the file.
    void planesAndFrames_data() {
        test::columns<QString, bool>({"file", "frames"});
        QTest::newRow("FITS cube, 30 planes") << QStringLiteral("datacube.fit") << false;
        QTest::newRow("DICOM, 2 frames") << QStringLiteral("SC_rgb_rle_2frame.dcm") << true;
    }
    void planesAndFrames() {
        QFETCH(QString, file);
        QFETCH(bool, frames);
        GLINT_REAL_FILE(path, file);
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        QVERIFY(openAndWait(window, path));
        AppContext& ctx = window.context();
        const auto part = [&] { return frames ? ctx.image()->meta.frame : ctx.image()->meta.plane; };
        const int count = frames ? ctx.image()->meta.frameCount : ctx.image()->meta.planeCount;
        QVERIFY(count > 1);
        ImagePartChooser* chooser = window.displayDock()->partChooser();
        QVERIFY(chooser->isVisible());
        QVERIFY(!chooser->hduBox()->isVisible()); // one HDU (or none: DICOM)
        QSpinBox* box = chooser->planeBox();
        QVERIFY(box->isVisible());
        QCOMPARE(box->maximum(), count - 1);
        box->setFocus();
        for (int n = 0; n < (count + 9) / 10; ++n) QTest::keyClick(box, Qt::Key_PageUp); // ten a step: to the last
        QTRY_VERIFY_WITH_TIMEOUT(part() == count - 1 && test::imageShown(ctx), 30000);
        LoadOptions last;
        (frames ? last.frame : last.plane) = count - 1;
        const Image cli = loadImage(path.toStdString(), last);
        QCOMPARE(ctx.loaded().stats.mean, computeStats(cli).mean);
        QVERIFY(ctx.loaded().stats.mean != computeStats(loadImage(path.toStdString())).mean); // not the first's
        QVERIFY(openAndWait(window, test::samplePath(QStringLiteral("ngc1316o.fit"))));
        QVERIFY(openAndWait(window, path));
        QCOMPARE(part(), count - 1);
        QCOMPARE(box->value(), count - 1);
    }

    // The primary HDU holds no data: choosing it gives a message; the image on screen stays, and the
    // chooser shows its HDU again.
    void imagelessHduKeepsTheImage() {
        GLINT_REAL_FILE(hst, QStringLiteral("j8bt06nyq_flt.fits"));
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        QVERIFY(openAndWait(window, hst));
        AppContext& ctx = window.context();
        const std::shared_ptr<const Image> before = ctx.image();
        QSignalSpy failed(&ctx, &AppContext::loadFailed);
        QComboBox* box = window.displayDock()->partChooser()->hduBox();
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Up); // HDU 1 → HDU 0
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 30000);
        const QString message = failed.first().at(1).toString();
        QVERIFY2(message.contains(QLatin1String("HDU 0")) && message.contains(QLatin1String("no image")), qPrintable(message));
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("no image")),
                 qPrintable(window.statusBar()->currentMessage()));
        QCOMPARE(ctx.image(), before);
        QCOMPARE(ctx.image()->meta.hdu, 1);
        QCOMPARE(box->currentData().toInt(), 1);
        QVERIFY(!ctx.isLoading());
        QCOMPARE(ctx.rememberedPart(hst).hdu, 1); // the failed choice is not remembered
    }

    // Values near ±1.7e308: the CLI's loader reads them, and so does the window (it used to stop with "a
    // histogram needs a finite range").
    void extremeValuesOpen_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("FITS, ±1.7e308 and a ramp") << QStringLiteral("ramp");
        QTest::newRow("FITS, ±1.7e308 outliers on sky") << QStringLiteral("outliers");
        QTest::newRow("DICOM, rescale slope 1.4e306 (±1.68e308)") << QStringLiteral("dicom");
    }
    void extremeValuesOpen() {
        QFETCH(QString, kind);
        QString path;
        if (kind == QLatin1String("dicom")) {
            path = test::writeTempFile(QStringLiteral("rescale_1.4e306.dcm"), rescaledDicom("1.4e306"));
        } else {
            const int w = 64, h = 48;
            std::vector<double> v(static_cast<std::size_t>(w) * h);
            const double most = std::numeric_limits<double>::max();
            for (std::size_t i = 0; i < v.size(); ++i) {
                const double t = static_cast<double>(i) / static_cast<double>(v.size() - 1);
                v[i] = kind == QLatin1String("ramp") ? -1.7e308 * (1.0 - t) + 1.7e308 * t : 1000.0 + static_cast<double>(i % 97);
            }
            v[0] = -1.7e308;
            v[1] = 1.7e308;
            v[2] = most;
            v[3] = -most;
            path = test::writeTempFile(QStringLiteral("extreme_%1.fits").arg(kind), doubleFits(w, h, v));
        }
        Image read;
        try {
            read = loadImage(path.toStdString()); // what glint-cli info reads
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        const ImageStats s = computeStats(read);
        QVERIFY(s.max > 1.0e308 && s.min < -1.0e308);
        QVERIFY(!std::isfinite(s.max - s.min)); // the range itself is beyond double
        MainWindow window(quiet());
        QVERIFY(test::showExposed(window, QSize(1280, 800)));
        expectShown(window, path, read);
        // Every limits mode and stretch draws it.
        for (LimitsMode mode : {LimitsMode::MinMax, LimitsMode::ZScale, LimitsMode::Percentile}) {
            DisplaySettings d = window.context().displaySettings();
            d.limits = mode;
            d.scale = DisplayScale::Asinh;
            window.context().setDisplaySettings(d);
            GLINT_WAIT_FOR_IMAGE(window);
            const DisplayLimits l = window.context().displayLimits();
            QVERIFY2(std::isfinite(l.low) && std::isfinite(l.high) && l.high > l.low,
                     qPrintable(QStringLiteral("%1: %2 .. %3").arg(limitsModeName(mode)).arg(l.low).arg(l.high)));
            if (mode == LimitsMode::MinMax)
                QVERIFY2(test::pictureStats(window.context().frame()->pixels).distinctColours > 2, "minmax: a flat frame");
        }
    }
};

GLINT_GUI_TEST_MAIN(TestGuiDayDisplay)
#include "test_gui_day_display.moc"
