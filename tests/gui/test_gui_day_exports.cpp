// Exports = the table (issue 34): the CSV that File ▸ Export Results writes holds every column of the results
// table, with the same values and positions (a brightest region's RA/Dec are its flux-weighted centroid's, as
// the table and the CLI's JSON give them), under the CLI's JSON names, with every digit; the table shows RA/Dec
// with the decimals the pixel scale needs, or in sexagesimal on demand; a trace on a georeferenced image has
// its length on the map in the table and in the CSV; an export to a place that cannot be written leaves a
// message and loses nothing.
#include "tests/gui/test_gui_export_support.h"

#include "core/export/CsvTable.h"
#include "core/export/Ds9Regions.h"
#include "core/export/RegionCsv.h"
#include "core/io/Georef.h"
#include "ui/modules/SourcesModule.h"
#include "ui/results/ResultsModel.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>

#include <cmath>
#include <map>
#include <string>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::exports;

namespace {

// The CSV column of each column the brightest table shows (the CLI's JSON names).
const std::map<QString, std::string> kBrightestColumns = {
    {QStringLiteral("rank"), "rank"},     {QStringLiteral("x"), "x"},
    {QStringLiteral("y"), "y"},           {QStringLiteral("width"), "width"},
    {QStringLiteral("height"), "height"}, {QStringLiteral("sum"), "sum"},
    {QStringLiteral("mean"), "mean"},     {QStringLiteral("flux"), "flux"},
    {QStringLiteral("SNR"), "snr"},       {QStringLiteral("centroid x"), "centroid_x"},
    {QStringLiteral("centroid y"), "centroid_y"}, {QStringLiteral("RA"), "ra"},
    {QStringLiteral("Dec"), "dec"},       {QStringLiteral("flags"), "flags"}};

struct Csv {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    int column(const std::string& name) const {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return static_cast<int>(i);
        return -1;
    }
};

Csv readCsv(const QString& path) {
    std::vector<std::vector<std::string>> all = parseCsv(readAll(path).toStdString());
    Csv csv;
    if (all.empty()) return csv;
    csv.header = all.front();
    csv.rows.assign(all.begin() + 1, all.end());
    return csv;
}

bool writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

// "hh:mm:ss.sss" / "+dd:mm:ss.ss" back to degrees.
double fromSexagesimal(const QString& text, bool hours) {
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() != 3) return std::nan("");
    const bool negative = text.startsWith(QLatin1Char('-'));
    const double v = std::abs(parts[0].toDouble()) + parts[1].toDouble() / 60.0 + parts[2].toDouble() / 3600.0;
    return (negative ? -v : v) * (hours ? 15.0 : 1.0);
}

// ESRI WKT of EPSG:32633 (WGS 84 / UTM zone 33N), as a .prj beside a world file holds it.
const char* const kUtm33Prj =
    "PROJCS[\"WGS_1984_UTM_Zone_33N\",GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,"
    "298.257223563]],PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]],PROJECTION[\"Transverse_Mercator\"],"
    "PARAMETER[\"False_Easting\",500000.0],PARAMETER[\"False_Northing\",0.0],PARAMETER[\"Central_Meridian\",15.0],"
    "PARAMETER[\"Scale_Factor\",0.9996],PARAMETER[\"Latitude_Of_Origin\",0.0],UNIT[\"Meter\",1.0]]";

// A bright horizontal road on a dark picture, for the trace to follow.
QImage roadPicture(int width, int height, int roadY) {
    QImage picture(width, height, QImage::Format_Grayscale8);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const int v = std::abs(y - roadY) <= 1 ? 230 : 20 + (x * 7 + y * 13) % 11;
            picture.setPixel(x, y, qRgb(v, v, v));
        }
    return picture;
}

} // namespace

class TestGuiDayExports : public QObject {
    Q_OBJECT

    QString dir_;

    // NGC 1316 (FITS with a WCS), K=3 brightest regions as the CLI's defaults run them.
    bool runNgc1316(MainWindow& window) {
        if (!openAndWait(window, test::samplePath(QStringLiteral("ngc1316o.fit")))) return false;
        QString message;
        const bool ok = runBrightest(window, 3, QStringLiteral("median"), QStringLiteral("cpu"), &message);
        if (!ok) qWarning("%s", qPrintable(message));
        return ok;
    }

private slots:
    void initTestCase() {
        dir_ = QDir(test::tempDir()).filePath(QStringLiteral("day-exports"));
        QVERIFY(QDir().mkpath(dir_));
    }

    // Every row and column of the table is in the CSV with the same value (numbers with every digit), under the
    // CLI's JSON name; RA/Dec are the flux-weighted centroid's, not the box centre's.
    void csvHoldsTheTable() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(runNgc1316(window));
        const ResultsModel* model = test::findModule<BrightestModule>(window)->model();
        QVERIFY(model);
        QCOMPARE(model->rowCount(), 3);
        const QStringList columns = model->columns();
        QVERIFY2(columns.contains(QStringLiteral("RA")) && columns.contains(QStringLiteral("flux")),
                 qPrintable(columns.join(',')));

        const QString base = QDir(dir_).filePath(QStringLiteral("ngc1316"));
        const QVector<ExportableResults> visible = visibleResults(window.exports()->results());
        QCOMPARE(visible.size(), 1);
        ResultFiles files;
        files.csv = base + QStringLiteral(".csv");
        QVERIFY2(window.exports()->exportResults(visible, files), qPrintable(window.exports()->lastError()));
        const Csv csv = readCsv(files.csv);
        QCOMPARE(csv.rows.size(), std::size_t(3));

        for (int c = 0; c < columns.size(); ++c) {
            const auto name = kBrightestColumns.find(columns[c]);
            QVERIFY2(name != kBrightestColumns.end(), qPrintable(QStringLiteral("table column '%1' has no CSV column").arg(columns[c])));
            const int k = csv.column(name->second);
            QVERIFY2(k >= 0, name->second.c_str());
            for (int row = 0; row < model->rowCount(); ++row) {
                const QVariant v = model->value(row, c);
                const std::string& cell = csv.rows[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)];
                const QString where = QStringLiteral("row %1, %2: table %3, CSV '%4'")
                                          .arg(row)
                                          .arg(columns[c], v.toString(), QString::fromStdString(cell));
                if (!v.isValid() || (v.typeId() == QMetaType::Double && std::isnan(v.toDouble()))) {
                    QVERIFY2(cell.empty(), qPrintable(where));
                    continue;
                }
                QVERIFY2(!cell.empty(), qPrintable(where));
                // Every digit: the CSV's text reads back as the table's very number.
                QVERIFY2(std::stod(cell) == v.toDouble(), qPrintable(where));
            }
        }

        // RA/Dec: the centroid's (as the table and the CLI's JSON), 3" and more from the box centre's for region 1.
        const auto image = window.context().image();
        QVERIFY(image && image->meta.wcs);
        const std::vector<std::string>& first = csv.rows.front();
        const SkyCoord written{std::stod(first[static_cast<std::size_t>(csv.column("ra"))]),
                               std::stod(first[static_cast<std::size_t>(csv.column("dec"))])};
        const auto centroid = image->meta.wcs->pixelToSky(std::stod(first[static_cast<std::size_t>(csv.column("centroid_x"))]),
                                                          std::stod(first[static_cast<std::size_t>(csv.column("centroid_y"))]));
        const auto boxCentre = image->meta.wcs->pixelToSky(std::stod(first[static_cast<std::size_t>(csv.column("center_x"))]),
                                                           std::stod(first[static_cast<std::size_t>(csv.column("center_y"))]));
        QVERIFY(centroid && boxCentre);
        QVERIFY2(skySeparationArcsec(written, *centroid) < 1e-3, qPrintable(QString::number(skySeparationArcsec(written, *centroid))));
        const double apart = skySeparationArcsec(*centroid, *boxCentre);
        QVERIFY2(apart > 3.0, qPrintable(QString::number(apart)));

        // The names and values are the CLI's JSON: glint-cli brightest --json for the same file and parameters.
        const QJsonObject json = test::runCliJson({QStringLiteral("brightest"), test::samplePath(QStringLiteral("ngc1316o.fit")),
                                                   QStringLiteral("--k"), QStringLiteral("3"), QStringLiteral("--pivot"),
                                                   QStringLiteral("median"), QStringLiteral("--backend"), QStringLiteral("cpu"),
                                                   QStringLiteral("--json"), QStringLiteral("-")});
        const QJsonArray regions = json[QStringLiteral("regions")].toArray();
        QCOMPARE(static_cast<int>(regions.size()), 3);
        for (const auto& row : csv.rows) // the pivot value (a sweep's table shows it)
            QCOMPARE(std::stod(row[static_cast<std::size_t>(csv.column("pivot"))]), json[QStringLiteral("pivot")].toDouble());
        for (int row = 0; row < 3; ++row) {
            const QJsonObject region = regions[row].toObject();
            for (const char* name : {"rank", "x", "y", "width", "height", "sum", "mean", "flux", "snr", "peak", "centroid_x",
                                     "centroid_y", "ra", "dec", "mean_background"}) {
                const std::string& cell = csv.rows[static_cast<std::size_t>(row)][static_cast<std::size_t>(csv.column(name))];
                if (!region.contains(QLatin1String(name))) { // the JSON leaves out what was not measured (an SNR
                    QVERIFY2(cell.empty(), name);          // without a background model): so does the CSV
                    continue;
                }
                QVERIFY2(std::stod(cell) == region[QLatin1String(name)].toDouble(), name);
            }
        }
    }

    // The source catalogue's table: every column in the CSV (by NUMBER = rank), x/y as centroid_x/y (the
    // region file's x, y are the ellipse's bounding box), RA/Dec the source's, with every digit.
    void sourcesCsvHoldsTheTable() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndWait(window, test::samplePath(QStringLiteral("ngc1316o.fit"))));
        auto* module = test::findModule<SourcesModule>(window);
        QSignalSpy finished(module, &SourcesModule::runFinished);
        QAction* find = nullptr;
        for (QAction* a : module->actions())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)) find = a;
        QVERIFY(find);
        find->trigger();
        QVERIFY(finished.count() > 0 || finished.wait(120000));
        const ResultsModel* model = module->model();
        QVERIFY(model && model->rowCount() > 100);
        QVERIFY(model->hasSkyColumns());

        const QVector<ExportableResults> visible = visibleResults(window.exports()->results());
        ResultFiles files;
        files.csv = QDir(dir_).filePath(QStringLiteral("sources.csv"));
        QVERIFY2(window.exports()->exportResults(visible, files), qPrintable(window.exports()->lastError()));
        const Csv csv = readCsv(files.csv);
        std::map<int, const std::vector<std::string>*> byNumber;
        const int kindColumn = csv.column("kind"), rankColumn = csv.column("rank");
        for (const auto& row : csv.rows)
            if (row[static_cast<std::size_t>(kindColumn)] == "source")
                byNumber[std::stoi(row[static_cast<std::size_t>(rankColumn)])] = &row;
        const std::map<QString, std::string> names = {
            {QStringLiteral("NUMBER"), "rank"}, {QStringLiteral("x"), "centroid_x"}, {QStringLiteral("y"), "centroid_y"},
            {QStringLiteral("FLUX_AUTO"), "flux_auto"}, {QStringLiteral("MAG_AUTO"), "mag_auto"}, {QStringLiteral("SNR"), "snr"},
            {QStringLiteral("A"), "a"}, {QStringLiteral("B"), "b"}, {QStringLiteral("THETA"), "theta"},
            {QStringLiteral("FWHM"), "fwhm"}, {QStringLiteral("FLAGS"), "flags"}, {QStringLiteral("RA"), "ra"},
            {QStringLiteral("Dec"), "dec"}};
        int compared = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            const auto found = byNumber.find(model->value(row, 0).toInt());
            if (found == byNumber.end()) continue; // a source without a shape has no region
            for (int c = 0; c < model->columns().size(); ++c) {
                const auto name = names.find(model->columns()[c]);
                QVERIFY2(name != names.end(), qPrintable(model->columns()[c]));
                const std::string& cell = (*found->second)[static_cast<std::size_t>(csv.column(name->second))];
                const QVariant v = model->value(row, c);
                if (!v.isValid() || (v.typeId() == QMetaType::Double && !std::isfinite(v.toDouble()))) {
                    QVERIFY2(cell.empty(), name->second.c_str());
                    continue;
                }
                QVERIFY2(!cell.empty() && std::stod(cell) == v.toDouble(),
                         qPrintable(QStringLiteral("source %1 %2: %3 vs '%4'")
                                        .arg(row)
                                        .arg(model->columns()[c], v.toString(), QString::fromStdString(cell))));
            }
            ++compared;
        }
        QVERIFY2(compared > 100, qPrintable(QString::number(compared)));
    }

    // Decimals of a degree from the pixel scale (a tenth of a pixel); the table shows RA/Dec with them.
    void tableDecimalsFollowThePixelScale() {
        QCOMPARE(ResultsModel::skyDecimals(0.05 / 3600.0), 6); // HST: 0.0036" steps for 0.05" pixels
        QCOMPARE(ResultsModel::skyDecimals(1.0 / 3600.0), 5);
        QCOMPARE(ResultsModel::skyDecimals(0.001 / 3600.0), 8);
        QCOMPARE(ResultsModel::skyDecimals(1.0), 4);             // never coarser than 4
        QCOMPARE(ResultsModel::skyDecimals(1e-12), 9);           // nor finer than 9
        QCOMPARE(ResultsModel::skyDecimals(std::nan("")), 6);    // unknown scale
        for (const double arcsec : {0.05, 0.13, 0.4, 1.0, 1.7, 25.0}) {
            const double step = std::pow(10.0, -ResultsModel::skyDecimals(arcsec / 3600.0)) * 3600.0;
            QVERIFY2(step <= arcsec / 10.0 + 1e-12, qPrintable(QString::number(arcsec)));
        }

        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(runNgc1316(window));
        const ResultsModel* model = test::findModule<BrightestModule>(window)->model();
        QVERIFY(model && model->hasSkyColumns());
        const double scale = ResultsModel::pixelScaleDeg(*window.context().image());
        QVERIFY2(scale > 0.1 / 3600 && scale < 10.0 / 3600, qPrintable(QString::number(scale * 3600)));
        const int decimals = ResultsModel::skyDecimals(scale);
        QCOMPARE(decimals, 4); // 7" pixels: 0.36" steps (the 3 decimals of before were 3.6")
        for (const int column : {model->raColumn(), model->decColumn()}) {
            QCOMPARE(model->columnDecimals(column), decimals);
            for (int row = 0; row < model->rowCount(); ++row) {
                const QString shown = model->data(model->index(row, column), Qt::DisplayRole).toString();
                QCOMPARE(static_cast<int>(shown.size() - shown.indexOf(QLatin1Char('.')) - 1), decimals);
                // Shown to a tenth of a pixel; the tooltip keeps every digit.
                const double raw = model->value(row, column).toDouble();
                QVERIFY2(std::abs(shown.toDouble() - raw) <= scale / 20.0, qPrintable(shown));
                QCOMPARE(model->data(model->index(row, column), Qt::ToolTipRole).toString().toDouble(), raw);
            }
        }
    }

    // RA/Dec in sexagesimal from the table's context menu (and its header's), to 0.01"; back to degrees.
    void sexagesimalOnDemand() {
        QCOMPARE(ResultsModel::sexagesimalRa(0.0), QStringLiteral("00:00:00.000"));
        QCOMPARE(ResultsModel::sexagesimalRa(50.6741), QStringLiteral("03:22:41.784"));
        QCOMPARE(ResultsModel::sexagesimalRa(359.99999999), QStringLiteral("00:00:00.000")); // rounds to 24 h
        QCOMPARE(ResultsModel::sexagesimalRa(-15.0), QStringLiteral("23:00:00.000"));
        QCOMPARE(ResultsModel::sexagesimalDec(-37.208222), QStringLiteral("-37:12:29.60"));
        QCOMPARE(ResultsModel::sexagesimalDec(-0.5), QStringLiteral("-00:30:00.00"));
        QCOMPARE(ResultsModel::sexagesimalDec(10.999999999), QStringLiteral("+11:00:00.00")); // 59.99999" carries
        QCOMPARE(ResultsModel::sexagesimalDec(90.0), QStringLiteral("+90:00:00.00"));

        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(runNgc1316(window));
        ResultsModel* model = test::findModule<BrightestModule>(window)->model();
        QVERIFY(model);
        QTableView* table = window.resultsDock()->table();
        auto* action = table->findChild<QAction*>(QStringLiteral("SexagesimalAction"));
        QVERIFY(action);
        QVERIFY(table->actions().contains(action));
        QVERIFY(table->horizontalHeader()->actions().contains(action));
        QCOMPARE(table->horizontalHeader()->contextMenuPolicy(), Qt::ActionsContextMenu);
        QVERIFY(action->isEnabled());
        QVERIFY(!action->isChecked());
        const QString degrees = model->data(model->index(0, model->raColumn()), Qt::DisplayRole).toString();

        action->trigger();
        QVERIFY(model->sexagesimal());
        const QRegularExpression raForm(QStringLiteral("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}$")),
            decForm(QStringLiteral("^[+-]\\d\\d:\\d\\d:\\d\\d\\.\\d\\d$"));
        for (int row = 0; row < model->rowCount(); ++row) {
            const QString ra = model->data(model->index(row, model->raColumn()), Qt::DisplayRole).toString();
            const QString dec = model->data(model->index(row, model->decColumn()), Qt::DisplayRole).toString();
            QVERIFY2(raForm.match(ra).hasMatch(), qPrintable(ra));
            QVERIFY2(decForm.match(dec).hasMatch(), qPrintable(dec));
            const double rawRa = model->value(row, model->raColumn()).toDouble(), rawDec = model->value(row, model->decColumn()).toDouble();
            QVERIFY2(skySeparationArcsec({fromSexagesimal(ra, true), rawDec}, {rawRa, rawDec}) <= 0.0076, qPrintable(ra));
            QVERIFY2(std::abs(fromSexagesimal(dec, false) - rawDec) * 3600.0 <= 0.0051, qPrintable(dec));
            // The table shows the same in its view (through the sorting proxy).
        }
        const QString shown = table->model()->index(0, model->raColumn()).data().toString();
        QVERIFY2(raForm.match(shown).hasMatch(), qPrintable(shown));

        // The export keeps degrees with every digit whatever the table shows.
        const QVector<ExportableResults> visible = visibleResults(window.exports()->results());
        ResultFiles files;
        files.csv = QDir(dir_).filePath(QStringLiteral("sexagesimal.csv"));
        QVERIFY(window.exports()->exportResults(visible, files));
        const Csv csv = readCsv(files.csv);
        QCOMPARE(std::stod(csv.rows.front()[static_cast<std::size_t>(csv.column("ra"))]), model->value(0, model->raColumn()).toDouble());

        action->trigger();
        QVERIFY(!model->sexagesimal());
        QCOMPARE(model->data(model->index(0, model->raColumn()), Qt::DisplayRole).toString(), degrees);

        // The choice is remembered: the next result set with RA/Dec comes in sexagesimal, and back in degrees
        // once unticked.
        action->trigger();
        QVERIFY(model->sexagesimal());
        QVERIFY(runNgc1316(window));
        ResultsModel* next = test::findModule<BrightestModule>(window)->model();
        QVERIFY(next && next != model && next->hasSkyColumns());
        QVERIFY(next->sexagesimal());
        QVERIFY(action->isChecked());
        QVERIFY(raForm.match(next->data(next->index(0, next->raColumn()), Qt::DisplayRole).toString()).hasMatch());
        action->trigger();
        QVERIFY(!next->sexagesimal());
        QVERIFY(runNgc1316(window));
        QVERIFY(!test::findModule<BrightestModule>(window)->model()->sexagesimal());

        // A set without RA/Dec (a text matrix) leaves the choice disabled.
        QVERIFY(openAndWait(window, brightest::writeMatrix(scene(60, 40, 5), QStringLiteral("no-wcs.csv"))));
        QString message;
        QVERIFY2(runBrightest(window, 1, QStringLiteral("mean"), QStringLiteral("cpu"), &message), qPrintable(message));
        QVERIFY(!test::findModule<BrightestModule>(window)->model()->hasSkyColumns());
        QVERIFY(!action->isEnabled());
    }

    // A trace on a georeferenced image (10 m pixels, UTM 33N): the table's length in metres is 10 x the length
    // in pixels, and the CSV's map_length holds the same number with its unit. Without georeferencing neither.
    void traceLengthOnTheMap() {
        if (!georefAvailable()) QSKIP("this build has no GDAL (GLINT_WITH_IMGCODECS=OFF): no image is georeferenced");
        const QString png = QDir(dir_).filePath(QStringLiteral("road.png"));
        QVERIFY(roadPicture(80, 40, 20).save(png));
        QVERIFY(writeText(QDir(dir_).filePath(QStringLiteral("road.pgw")), "10\n0\n0\n-10\n500005\n4999995\n"));
        QVERIFY(writeText(QDir(dir_).filePath(QStringLiteral("road.prj")), kUtm33Prj));

        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(openAndWait(window, png));
        QVERIFY(window.context().image()->meta.georef);
        QVERIFY(runTrace(window, {QPointF(5, 20), QPointF(74, 20)}));
        const ResultsModel* model = test::findModule<TraceModule>(window)->model();
        QVERIFY(model);
        QCOMPARE(model->rowCount(), 1);
        const int metres = static_cast<int>(model->columns().indexOf(QStringLiteral("length (m)")));
        QVERIFY2(metres >= 0, qPrintable(model->columns().join(',')));
        const double px = model->value(0, 2).toDouble();
        QVERIFY2(px >= 60.0, qPrintable(QString::number(px)));
        QVERIFY2(std::abs(model->value(0, metres).toDouble() - 10.0 * px) < 1e-6 * px,
                 qPrintable(QStringLiteral("%1 m for %2 px").arg(model->value(0, metres).toDouble()).arg(px)));

        const QVector<ExportableResults> visible = visibleResults(window.exports()->results());
        ResultFiles files;
        files.csv = QDir(dir_).filePath(QStringLiteral("road-trace.csv"));
        QVERIFY2(window.exports()->exportResults(visible, files), qPrintable(window.exports()->lastError()));
        const Csv csv = readCsv(files.csv);
        QCOMPARE(csv.rows.size(), std::size_t(1));
        QVERIFY(csv.column("map_length") >= 0 && csv.column("map_length_unit") >= 0);
        const std::vector<std::string>& row = csv.rows.front();
        QCOMPARE(std::stod(row[static_cast<std::size_t>(csv.column("map_length"))]), model->value(0, metres).toDouble());
        QCOMPARE(row[static_cast<std::size_t>(csv.column("map_length_unit"))], std::string("metre"));
        QVERIFY(std::abs(std::stod(row[static_cast<std::size_t>(csv.column("length"))]) - px) < 1e-9 * px);
        QCOMPARE(std::stod(row[static_cast<std::size_t>(csv.column("legs"))]), model->value(0, 1).toDouble());
        const int lowest = static_cast<int>(model->columns().indexOf(QStringLiteral("lowest confidence")));
        QVERIFY(lowest >= 0);
        QCOMPARE(std::stod(row[static_cast<std::size_t>(csv.column("min_confidence"))]), model->value(0, lowest).toDouble());
        QCOMPARE(std::stod(row[static_cast<std::size_t>(csv.column("score"))]), model->value(0, 3).toDouble());
        // The table's text columns: mode, backend and the confidence of each leg (the table's two decimals, the
        // file's every digit).
        const auto text = [&](const char* name) { return QString::fromStdString(row[static_cast<std::size_t>(csv.column(name))]); };
        const auto tableText = [&](const QString& header) {
            const int c = static_cast<int>(model->columns().indexOf(header));
            return c >= 0 ? model->value(0, c).toString() : QStringLiteral("<no column %1>").arg(header);
        };
        QCOMPARE(text("mode"), tableText(QStringLiteral("mode")));
        QCOMPARE(text("backend"), tableText(QStringLiteral("backend")));
        QVERIFY(!text("mode").isEmpty() && !text("backend").isEmpty());
        QStringList legs;
        for (const QString& c : text("leg_confidences").split(QLatin1Char(';'))) legs << QString::number(c.toDouble(), 'f', 2);
        QCOMPARE(legs.join(QStringLiteral(", ")), tableText(QStringLiteral("confidence per leg")));
        QCOMPARE(legs.size(), model->value(0, 1).toInt());

        // The same picture without its world file: lengths in pixels only.
        const QString plain = QDir(dir_).filePath(QStringLiteral("road-plain.png"));
        QVERIFY(roadPicture(80, 40, 20).save(plain));
        QVERIFY(openAndWait(window, plain));
        QVERIFY(!window.context().image()->meta.georef);
        QVERIFY(runTrace(window, {QPointF(5, 20), QPointF(74, 20)}));
        const ResultsModel* plainModel = test::findModule<TraceModule>(window)->model();
        QVERIFY(plainModel && plainModel->rowCount() == 1);
        QVERIFY(!plainModel->columns().join(',').contains(QStringLiteral("(m)")));
    }

    // Over a geographic CRS the length is along geodesics of the CRS's ellipsoid, in metres: a degree of longitude
    // on the equator of WGS 84 (a pi / 180, a = 6378137 m).
    void geographicLengthInMetres() {
        if (!georefAvailable()) QSKIP("this build has no GDAL (GLINT_WITH_IMGCODECS=OFF): no image is georeferenced");
        // 0.01° pixels, the first pixel's corner at (0°, 0.5°N).
        const auto georef = Georef::create({0.0, 0.01, 0.0, 0.5, 0.0, -0.01}, "EPSG:4326");
        QVERIFY(georef && georef->isGeographic());
        // Pixels 0..100 along a row at y = 49.5 (the equator): 1° of longitude.
        const auto length = mapLength({{0.0, 49.5}, {50.0, 49.5}, {100.0, 49.5}}, *georef);
        QVERIFY(length);
        QCOMPARE(length->unit, std::string("metre"));
        QVERIFY2(std::abs(length->value - 111319.49) < 0.01, qPrintable(QString::number(length->value, 'f', 2)));
        QVERIFY(!mapLength({{3.0, 4.0}}, *georef)); // one point: no length
        // A projected CRS: the CRS's unit.
        const auto utm = Georef::create({500000.0, 10.0, 0.0, 5000000.0, 0.0, -10.0}, "EPSG:32633");
        QVERIFY(utm);
        const auto l = mapLength({{0.0, 0.0}, {3.0, 4.0}}, *utm);
        QVERIFY(l);
        QCOMPARE(l->value, 50.0);
        QCOMPARE(l->unit, std::string("metre"));
    }

    // An export to a place that cannot be written: false, a message in the status bar, no file; the results stay
    // (table and sets) and the same export to a good place then writes them.
    void unwritableFolderLosesNothing() {
        MainWindow window({false, false});
        brightest::showWindow(window);
        QVERIFY(runNgc1316(window));
        const ResultsModel* model = test::findModule<BrightestModule>(window)->model();
        const int rows = model->rowCount();
        const QString folder = QDir(dir_).filePath(QStringLiteral("blocked"));
        QVERIFY(QDir().mkpath(folder));
        QFile blocker(QDir(folder).filePath(QStringLiteral("plain")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.write("not a folder");
        blocker.close();
        const QVector<ExportableResults> visible = visibleResults(window.exports()->results());
        const ResultFiles bad = resultFilesFor(QDir(blocker.fileName()).filePath(QStringLiteral("out")), visible);
        QSignalSpy failed(window.exports(), &ExportActions::exportFailed);
        QVERIFY(!window.exports()->exportResults(visible, bad));
        QCOMPARE(failed.count(), 1);
        QVERIFY(!window.exports()->lastError().isEmpty());
        QVERIFY(!window.statusBar()->currentMessage().isEmpty());
        QCOMPARE(folderEntries(folder), QStringList{QStringLiteral("plain")});
        QCOMPARE(readAll(blocker.fileName()), QByteArray("not a folder"));
        // Nothing lost: the table, the sets and the image are as they were.
        QCOMPARE(test::findModule<BrightestModule>(window)->model()->rowCount(), rows);
        QCOMPARE(visibleResults(window.exports()->results()).size(), visible.size());
        QVERIFY(window.context().hasImage());
        const ResultFiles good = resultFilesFor(QDir(folder).filePath(QStringLiteral("out")), visible);
        QVERIFY2(window.exports()->exportResults(visible, good), qPrintable(window.exports()->lastError()));
        QCOMPARE(readCsv(good.csv).rows.size(), static_cast<std::size_t>(rows));
    }
};

GLINT_GUI_TEST_MAIN(TestGuiDayExports)
#include "test_gui_day_exports.moc"
