// A georeferenced image in the window: a PNG with a world file and a .prj (ESRI WKT, as ArcGIS and QGIS
// write it) opens, the status bar shows map coordinates in the CRS's units and WGS 84 lon/lat for the
// pixel under the cursor, and the header view lists the CRS. Skips in a build without GDAL.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "ui/StatusReadout.h"
#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"

#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QDir>
#include <QFile>
#include <QImage>

using namespace glint;
using glint::ui::MainWindow;

namespace {

// ESRI WKT of EPSG:32633 (WGS 84 / UTM zone 33N), as a .prj beside a world file holds it.
const char* const kUtm33Prj =
    "PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,"
    "298.257223563]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
    "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],PARAMETER[\"Central_Meridian\",15.0],"
    "PARAMETER[\"Scale_Factor\",0.9996],PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";

bool writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

// Whether any item view of the window shows a row whose first column is `key`, and its second column.
QString headerValue(QWidget& window, const QString& key) {
    for (QAbstractItemView* view : window.findChildren<QAbstractItemView*>()) {
        const QAbstractItemModel* model = view->model();
        if (!model || model->columnCount() < 2) continue;
        for (int row = 0; row < model->rowCount(); ++row)
            if (model->index(row, 0).data().toString() == key) return model->index(row, 1).data().toString();
    }
    return {};
}

} // namespace

class TestGuiGeoref : public QObject {
    Q_OBJECT

private slots:
    void formatMapWithoutGeoref() {
        Image image = Image::fromSamples<std::uint8_t>(3, 2, std::vector<std::uint8_t>(6, 1));
        QCOMPARE(ui::StatusReadout::formatMap(image, 0, 0), QString());
    }

    void readoutAndHeader() {
        if (!georefAvailable()) QSKIP("this build has no GDAL (GLINT_WITH_IMGCODECS=OFF): no image is georeferenced");
        const QString dir = test::tempDir() + "/gui-georef";
        QVERIFY(QDir().mkpath(dir));
        QImage picture(40, 30, QImage::Format_Grayscale8);
        for (int y = 0; y < picture.height(); ++y)
            for (int x = 0; x < picture.width(); ++x) picture.setPixel(x, y, qRgb(x * 6, x * 6, x * 6));
        QVERIFY(picture.save(dir + "/map.png"));
        // 10 m pixels; the centre of the top-left pixel at (500005, 4999995).
        QVERIFY(writeText(dir + "/map.pgw", "10\n0\n0\n-10\n500005\n4999995\n"));
        QVERIFY(writeText(dir + "/map.prj", kUtm33Prj));

        MainWindow window({false, false});
        QVERIFY(test::showExposed(window, QSize(1200, 800)));
        window.openFile(dir + "/map.png");
        GLINT_WAIT_FOR_IMAGE(window);
        const auto image = window.context().image();
        QVERIFY(image && image->meta.georef);
        QCOMPARE(image->meta.georef->epsg().value_or(0), 32633);

        // Pixel (3, 2): its centre is 3 and 2 pixels from the first one's.
        window.readout()->showCursor(QPointF(3.2, 1.9));
        QCOMPARE(window.readout()->pixelText(), QStringLiteral("x 3  y 2"));
        const QString map = window.readout()->mapText();
        QVERIFY2(map.startsWith(QStringLiteral("X 500035  Y 4999975 m")), qPrintable(map));
        const auto ll = image->meta.georef->pixelToLonLat(3, 2);
        QVERIFY(ll);
        QVERIFY2(map.contains(QStringLiteral("lon %1°  lat %2°").arg(ll->lon, 0, 'f', 6).arg(ll->lat, 0, 'f', 6)), qPrintable(map));
        QVERIFY(std::abs(ll->lon - 15.00044) < 1e-4); // 35 m east of the central meridian, at 45° N
        QCOMPARE(window.readout()->skyText(), QString()); // no WCS: no RA/Dec
        window.readout()->clearCursor();
        QCOMPARE(window.readout()->mapText(), QString());
        window.readout()->showCursor(QPointF(100, 100)); // outside the image
        QCOMPARE(window.readout()->mapText(), QString());

        // The header view lists the georeferencing as cards.
        QCOMPARE(headerValue(window, QStringLiteral("CRS")), QStringLiteral("WGS 84 / UTM zone 33N"));
        QCOMPARE(headerValue(window, QStringLiteral("EPSG")), QStringLiteral("32633"));
        QCOMPARE(headerValue(window, QStringLiteral("GEOTRANSFORM")), QStringLiteral("500000, 10, 0, 5000000, 0, -10"));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiGeoref)
#include "test_gui_georef.moc"
