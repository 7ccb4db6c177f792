// The Sources module (issue 30's window): Analyze ▸ Find Sources on the bundled NGC 1316 frame gives the catalogue
// `glint-cli sources --preset auto` prints, row for row; its Kron ellipses are linked both ways with the table; the
// segmentation toggles; the maps open as images and the image comes back; the catalogue is written, exported as
// regions, offered to SAMP and kept by sessions; an image without sources shows why.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/export/SourceCatalogFile.h"
#include "ui/docks/ResultsDock.h"
#include "ui/export/ExportActions.h"
#include "ui/modules/SourcesModule.h"
#include "ui/modules/SourcesPanel.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/results/ResultsModel.h"
#include "ui/samp/SampActions.h"
#include "ui/session/Session.h"
#include "ui/session/SessionJson.h"
#include "ui/params/SpecForm.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTableView>

#include <cmath>
#include <random>

using namespace glint;
using namespace glint::ui;

namespace {

SourcesModule* sourcesOf(MainWindow& window) { return test::findModule<SourcesModule>(window); }

bool showAndOpen(MainWindow& window, const QString& path) {
    if (!test::showExposed(window, QSize(1280, 860))) return false;
    window.openFile(path);
    return QTest::qWaitFor([&] { return test::imageShown(window.context()); }, 30000);
}

// Runs Analyze ▸ Find Sources (its shortcut's action) and waits for the end; false with the message otherwise.
bool runSources(SourcesModule* module, QString* message) {
    QSignalSpy finished(module, &SourcesModule::runFinished);
    QSignalSpy failed(module, &SourcesModule::runFailed);
    QAction* find = nullptr;
    for (QAction* a : module->actions())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)) find = a;
    if (!find) {
        *message = QStringLiteral("no action with Ctrl+Shift+S");
        return false;
    }
    find->trigger();
    QElapsedTimer clock;
    clock.start();
    while (finished.isEmpty() && failed.isEmpty() && clock.elapsed() < 120000) QTest::qWait(20);
    if (!failed.isEmpty()) *message = failed.first().first().toString();
    else if (finished.isEmpty()) *message = QStringLiteral("no result in 120 s");
    return !finished.isEmpty();
}

QJsonObject cliSources(const QString& path, const QStringList& extra = {}) {
    return test::runCliJson(QStringList{QStringLiteral("sources"), path, QStringLiteral("--preset"), QStringLiteral("auto"),
                                        QStringLiteral("--json"), QStringLiteral("-")} + extra);
}

// Every row of the model against the CLI's sources: NUMBER, x, y, FLUX_AUTO, MAG_AUTO, SNR, A, B, THETA, FWHM, FLAGS
// to the bit (null = NaN).
QString compareRows(const ResultsModel* model, const QJsonArray& sources) {
    if (model->rowCount() != sources.size())
        return QStringLiteral("%1 rows, the CLI %2 sources").arg(model->rowCount()).arg(sources.size());
    const char* keys[] = {"number", "x", "y", "flux_auto", "mag_auto", "snr", "a", "b", "theta", "fwhm", "flags"};
    for (int row = 0; row < model->rowCount(); ++row) {
        const QJsonObject s = sources[row].toObject();
        for (int c = 0; c < 11; ++c) {
            const QJsonValue want = s[QLatin1String(keys[c])];
            const double shown = model->value(row, c).toDouble();
            const bool same = want.isNull() ? std::isnan(shown) : shown == want.toDouble();
            if (!same) return QStringLiteral("row %1 %2: %3, the CLI %4").arg(row).arg(QLatin1String(keys[c])).arg(shown, 0, 'g', 17).arg(want.toDouble(), 0, 'g', 17);
        }
    }
    return {};
}

} // namespace

class TestGuiSources : public QObject {
    Q_OBJECT

private slots:
    void skyFrameOpensOnSources_data() {
        test::columns<QString>({"path"});
        QTest::newRow("bundled NGC 1316") << test::samplePath(QStringLiteral("ngc1316o.fit"));
        QTest::newRow("HST 47 Tuc (extension HDU)") << test::fetchedPath(QStringLiteral("j8bt06nyq_flt.fits"));
    }
    void skyFrameOpensOnSources() {
        // A FITS sky frame's first analysis is its catalogue: the Sources page comes forward when it opens.
        QFETCH(QString, path);
        if (path.isEmpty() || !QFile::exists(path)) QSKIP("the real_data fixture did not fetch the file");
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        QCOMPARE(window.parametersDock()->currentTitle(), QStringLiteral("Sources"));
    }

    void catalogueIsTheCli() {
        const QString path = test::samplePath(QStringLiteral("ngc1316o.fit"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        SourcesModule* module = sourcesOf(window);
        QVERIFY(test::moduleRegistered(window, module));
        QString message;
        QVERIFY2(runSources(module, &message), qPrintable(message));

        const QJsonObject cli = cliSources(path);
        const QJsonArray sources = cli[QStringLiteral("sources")].toArray();
        QVERIFY(sources.size() > 100); // the frame has hundreds: a run that found few is wrong
        ResultsModel* model = module->model();
        QVERIFY(model);
        QCOMPARE(model->rowCount(), sources.size());
        const QString difference = compareRows(model, sources);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        // The resolved parameters are the CLI's (what --params replays).
        QCOMPARE(sessionjson::fromJson(module->catalogue()->parameters), cli[QStringLiteral("parameters")].toObject());
        // The results dock shows this set, the ellipses one per source, the brightest labelled.
        QCOMPARE(window.resultsDock()->currentModel(), model);
        QCOMPARE(module->ellipseLayer()->itemCount(), sources.size());
        QCOMPARE(module->ellipseLayer()->shape(0).label, QStringLiteral("#1"));
        QCOMPARE(module->ellipseLayer()->shape(sources.size() - 1).label, QStringLiteral("#%1").arg(sources.size()));
        QCOMPARE(module->ellipseLayer()->labelledCount(), 30);
        // RA and Dec with the decimals the pixel scale needs (a tenth of a pixel: 4 for this frame's 7" pixels).
        const QModelIndex ra = model->index(0, 11);
        QVERIFY(model->value(0, 11).toDouble() > 0.0);
        const int decimals = ResultsModel::skyDecimals(ResultsModel::pixelScaleDeg(*window.context().image()));
        QCOMPARE(decimals, 4);
        QCOMPARE(model->data(ra, Qt::DisplayRole).toString(),
                 QString::number(sources[0].toObject()[QStringLiteral("ra")].toDouble(), 'f', decimals));
        // The first ellipse is centred on the source (core's AUTO aperture, at x_iso, y_iso).
        const QPointF centre = module->ellipseLayer()->itemBounds(0).center();
        QVERIFY(std::abs(centre.x() - sources[0].toObject()[QStringLiteral("x_iso")].toDouble()) < 0.5);
        QVERIFY(std::abs(centre.y() - sources[0].toObject()[QStringLiteral("y_iso")].toDouble()) < 0.5);
        if (const QString dir = qEnvironmentVariable("GLINT_SCREENSHOT_DIR"); !dir.isEmpty())
            window.grab().save(QDir(dir).filePath(QStringLiteral("sources-ngc1316.png")));
    }

    void tableAndEllipsesLinked() {
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, test::samplePath(QStringLiteral("ngc1316o.fit"))));
        SourcesModule* module = sourcesOf(window);
        QString message;
        QVERIFY2(runSources(module, &message), qPrintable(message));
        ResultsDock* dock = window.resultsDock();
        ResultsModel* model = module->model();
        // A row selects its ellipse.
        dock->selectRow(6);
        QCOMPARE(module->ellipseLayer()->selected(), model->overlayItem(6));
        // An ellipse clicked on the canvas selects its row: the centre of a small isolated one.
        int item = -1;
        for (int i = 20; i < module->ellipseLayer()->itemCount() && item < 0; ++i) {
            const QRectF b = module->ellipseLayer()->itemBounds(i);
            if (b.width() < 20 && module->ellipseLayer()->hitTest(b.center(), 0.5) == i) item = i;
        }
        QVERIFY(item >= 0);
        const QPointF at = module->ellipseLayer()->itemBounds(item).center();
        QTest::mouseClick(window.canvas(), Qt::LeftButton, Qt::NoModifier, window.canvas()->view().imageToWidget(at).toPoint());
        QTRY_COMPARE(module->ellipseLayer()->selected(), item);
        QCOMPARE(dock->selectedRow(), model->rowForOverlayItem(item));
        // A double-click on a row centres the view on its ellipse (zoomed in, so that the view can move).
        for (int i = 0; i < 4; ++i) window.canvas()->zoomIn();
        int row = -1; // a source in the middle part of the frame, where the view can centre on it
        for (int r = 0; r < model->rowCount() && row < 0; ++r) {
            const QRectF b = module->ellipseLayer()->itemBounds(model->overlayItem(r));
            if (b.width() < 30 && b.center().x() > 150 && b.center().x() < 290 && b.center().y() > 100 && b.center().y() < 200) row = r;
        }
        QVERIFY(row >= 0);
        const QRectF target = module->ellipseLayer()->itemBounds(model->overlayItem(row));
        QTableView* table = dock->table();
        emit table->doubleClicked(table->model()->index(row, 0)); // unsorted: proxy row = source row
        const QPointF centre = window.canvas()->view().imageToWidget(target.center());
        QVERIFY2(std::abs(centre.x() - window.canvas()->width() / 2.0) < 1e-6 && std::abs(centre.y() - window.canvas()->height() / 2.0) < 1e-6,
                 qPrintable(QStringLiteral("the ellipse's centre at %1,%2 in the view").arg(centre.x()).arg(centre.y())));
        // Sorting keeps the link: sorted by FLUX_AUTO ascending, the first row is the faintest source.
        dock->table()->sortByColumn(3, Qt::AscendingOrder);
        dock->table()->selectRow(0);
        QCOMPARE(module->ellipseLayer()->selected(), model->overlayItem(model->rowCount() - 1));
    }

    void segmentationAndMaps() {
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, test::samplePath(QStringLiteral("ngc1316o.fit"))));
        SourcesModule* module = sourcesOf(window);
        QString message;
        QVERIFY2(runSources(module, &message), qPrintable(message));
        SegmentationLayer* segmentation = module->segmentationLayer();
        QVERIFY(segmentation);
        QVERIFY(!segmentation->isVisible()); // off by default
        module->panel()->segmentationCheck()->setChecked(true);
        QVERIFY(segmentation->isVisible());
        const glint::SourcesResult& r = *module->catalogue()->result;
        const glint::SourceRecord& second = r.catalog.sources[1];
        QCOMPARE(segmentation->numberAt(static_cast<int>(std::lround(second.x)), static_cast<int>(std::lround(second.y))), 2);
        QVERIFY(segmentation->colourFor(1) != segmentation->colourFor(2));
        module->panel()->segmentationCheck()->setChecked(false);
        QVERIFY(!segmentation->isVisible());

        // The background map as the current image, then back to the image with its catalogue.
        const auto image = window.context().image();
        const int rows = module->model()->rowCount();
        QVERIFY(module->showMap(SourcesModule::Map::Background));
        GLINT_WAIT_FOR_IMAGE(window);
        QVERIFY(window.context().image() != image);
        QVERIFY(window.windowTitle().contains(QStringLiteral("background map")));
        QCOMPARE(window.context().image()->value(100, 50), static_cast<double>(r.background[50 * r.width + 100]));
        QCOMPARE(window.context().image()->meta.displayYUp, image->meta.displayYUp);
        QVERIFY(module->showMap(SourcesModule::Map::Rms));
        QCOMPARE(window.context().image()->value(10, 20), static_cast<double>(r.rms[20 * r.width + 10]));
        QVERIFY(module->showImage());
        GLINT_WAIT_FOR_IMAGE(window);
        QCOMPARE(window.context().image(), image);
        QCOMPARE(module->model()->rowCount(), rows);
        QCOMPARE(module->ellipseLayer()->itemCount(), rows);
    }

    void filesRegionsAndSamp() {
        const QString path = test::samplePath(QStringLiteral("ngc1316o.fit"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        SourcesModule* module = sourcesOf(window);
        QVERIFY(module->catalogueForSamp().empty()); // no catalogue yet
        QString message;
        QVERIFY2(runSources(module, &message), qPrintable(message));
        const glint::SourcesResult& r = *module->catalogue()->result;
        // CSV: a header row, then one row a source, X_IMAGE 1-based.
        const QString csv = QDir(test::tempDir()).filePath(QStringLiteral("ngc.csv"));
        module->writeCatalogue(csv);
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), static_cast<qsizetype>(r.catalog.sources.size()) + 1);
        const QList<QByteArray> header = lines[0].split(',');
        const int number = static_cast<int>(header.indexOf("NUMBER")), x = static_cast<int>(header.indexOf("X_IMAGE"));
        QVERIFY(number >= 0 && x >= 0);
        const QList<QByteArray> first = lines[1].split(',');
        QCOMPARE(first[number].toInt(), 1);
        QCOMPARE(first[x].toDouble(), r.catalog.sources[0].x + 1.0);
        // FITS and LDAC: the bytes core writes for this catalogue and header.
        const QString fits = QDir(test::tempDir()).filePath(QStringLiteral("ngc.ldac"));
        module->writeCatalogue(fits);
        const std::string bytes = test::readFileString(fits);
        QVERIFY(bytes.rfind("SIMPLE  =", 0) == 0);
        QVERIFY(bytes.find("LDAC_OBJECTS") != std::string::npos);
        QVERIFY(bytes.find("SEXBKDEV") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(std::exception, module->writeCatalogue(QDir(test::tempDir()).filePath(QStringLiteral("x.bad"))));

        // File ▸ Export Results: one ellipse region per source.
        const QVector<ExportableResults> sets = module->exportableResults();
        QCOMPARE(sets.size(), 1);
        QCOMPARE(static_cast<qsizetype>(sets[0].regions.size()), module->ellipseLayer()->itemCount());
        const QString reg = QDir(test::tempDir()).filePath(QStringLiteral("ngc.reg"));
        // (in pixel coordinates: DS9's own ellipses; on the sky core writes each as a polygon)
        QVERIFY(window.exports()->exportResults(sets, {reg, {}, {}, {}, glint::Ds9System::Image}));
        const QString regText = QString::fromStdString(test::readFileString(reg));
        QCOMPARE(regText.count(QStringLiteral("ellipse(")), module->ellipseLayer()->itemCount());

        // SAMP's catalogue: a FITS table of this catalogue, written once; none once another image is open.
        const std::string samp = module->catalogueForSamp();
        QVERIFY(!samp.empty());
        QVERIFY(QFile::exists(QString::fromStdString(samp)));
        QCOMPARE(test::readFileString(QString::fromStdString(samp)),
                 glint::sourceCatalogBytes(r.catalog, glint::SourceCatalogFormat::Fits, nullptr));
        window.context().setImage(glint::Image(32, 32, glint::SampleType::Float32), QStringLiteral("blank"));
        QVERIFY(module->catalogueForSamp().empty());
        QVERIFY(module->exportableResults().isEmpty());
    }

    void sessionRoundTrip() {
        const QString path = test::samplePath(QStringLiteral("ngc1316o.fit"));
        const QString session = QDir(test::tempDir()).filePath(QStringLiteral("sources-session.json"));
        QVector<QVariantList> rows;
        {
            MainWindow window({false, false});
            QVERIFY(showAndOpen(window, path));
            SourcesModule* module = sourcesOf(window);
            module->panel()->form()->doubleSpinBox("threshold")->setValue(5.0);
            module->setRoi(QRect(10, 10, 400, 270));
            module->addExclusionPolygon(QPolygonF{QPointF(30, 30), QPointF(60, 30), QPointF(45, 60)});
            QString message;
            QVERIFY2(runSources(module, &message), qPrintable(message));
            for (int row = 0; row < module->model()->rowCount(); ++row) {
                QVariantList values;
                for (int c = 0; c < module->model()->columnCount(); ++c) values << module->model()->value(row, c);
                rows << values;
            }
            QVERIFY(!rows.isEmpty());
            window.sessions()->save(session);
        }
        MainWindow fresh({false, false});
        QVERIFY(test::showExposed(fresh, QSize(1280, 860)));
        QSignalSpy opened(fresh.sessions(), &SessionManager::opened);
        QSignalSpy failed(fresh.sessions(), &SessionManager::failed);
        fresh.sessions()->open(session);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() || !failed.isEmpty(), 30000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        SourcesModule* module = sourcesOf(fresh);
        QVERIFY(module->model());
        QCOMPARE(module->panel()->form()->doubleSpinBox("threshold")->value(), 5.0);
        QCOMPARE(module->roi(), std::optional<QRect>(QRect(10, 10, 400, 270)));
        QCOMPARE(module->exclusionCount(), 1);
        QCOMPARE(module->exclusionLayer()->shape(0).points.size(), 3);
        QCOMPARE(module->model()->rowCount(), rows.size());
        for (int row = 0; row < rows.size(); ++row)
            for (int c = 0; c < rows[row].size(); ++c) {
                const QVariant a = rows[row][c], b = module->model()->value(row, c);
                const bool same = a.typeId() == QMetaType::Double && std::isnan(a.toDouble()) ? std::isnan(b.toDouble()) : a == b;
                QVERIFY2(same, qPrintable(QStringLiteral("row %1 column %2: %3 vs %4").arg(row).arg(c).arg(a.toString(), b.toString())));
            }
        QCOMPARE(module->ellipseLayer()->itemCount(), static_cast<int>(rows.size()));
        QVERIFY(!module->segmentationLayer()); // the maps are not in sessions
        QVERIFY(!module->panel()->backgroundButton()->isEnabled());
        QVERIFY(module->panel()->saveCatalogueButton()->isEnabled());
    }

    void shapesAreTheCli() {
        // An ROI drawn on the canvas and an exclusion rectangle over the bright star #7: the CLI's --roi and --exclude.
        const QString path = test::samplePath(QStringLiteral("ngc1316o.fit"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        SourcesModule* module = sourcesOf(window);
        const QRect roi(200, 20, 230, 260), excluded(380, 187, 25, 25);
        // The ROI with the rectangle tool, as a user drags it.
        QAction* drawRoi = nullptr;
        for (QAction* a : module->actions())
            if (a->text() == QStringLiteral("Sources: Draw ROI")) drawRoi = a;
        QVERIFY(drawRoi);
        drawRoi->trigger();
        const ViewTransform v = window.canvas()->view();
        QTest::mousePress(window.canvas(), Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(roi.topLeft())).toPoint());
        QTest::mouseMove(window.canvas(), v.imageToWidget(QPointF(roi.bottomRight())).toPoint());
        QTest::mouseRelease(window.canvas(), Qt::LeftButton, Qt::NoModifier, v.imageToWidget(QPointF(roi.bottomRight())).toPoint());
        QCOMPARE(module->roi(), std::optional<QRect>(roi));
        QVERIFY(module->roiLayer() && module->roiLayer()->itemCount() == 1);
        module->addExclusionRectangle(excluded);
        QCOMPARE(module->exclusionLayer()->itemCount(), 1);
        QString message;
        QVERIFY2(runSources(module, &message), qPrintable(message));
        const auto arg = [](const QRect& r) { return QStringLiteral("%1,%2,%3,%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height()); };
        const QJsonObject cli = cliSources(path, {QStringLiteral("--roi"), arg(roi), QStringLiteral("--exclude"), arg(excluded)});
        const QJsonArray sources = cli[QStringLiteral("sources")].toArray();
        QVERIFY(sources.size() > 20);
        const QString difference = compareRows(module->model(), sources);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(sources.size() < cliSources(path, {QStringLiteral("--roi"), arg(roi)})[QStringLiteral("sources")].toArray().size() + 1);
        for (const QJsonValue& s : sources) {
            const double x = s.toObject()[QStringLiteral("x")].toDouble(), y = s.toObject()[QStringLiteral("y")].toDouble();
            QVERIFY(x > roi.left() - 1 && x < roi.right() + 1 && y > roi.top() - 1 && y < roi.bottom() + 1);
        }
        // A map shown and the image back: the shapes are still there; another image clears them.
        QVERIFY(module->showMap(SourcesModule::Map::Rms));
        QVERIFY(!module->roiLayer());
        QVERIFY(module->showImage());
        QVERIFY(module->roiLayer() && module->exclusionLayer());
        QCOMPARE(module->exclusionCount(), 1);
        window.context().setImage(glint::Image(32, 32, glint::SampleType::Float32), QStringLiteral("blank"));
        QVERIFY(!module->roi());
        QCOMPARE(module->exclusionCount(), 0);
    }

    void noSourceShowsTheNote() {
        // Uniform noise: nothing stands out. The window says why the catalogue is empty, as the CLI does.
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        QByteArray text;
        for (int y = 0; y < 96; ++y) {
            for (int x = 0; x < 96; ++x) text += (x ? "," : "") + QByteArray::number(u(rng), 'g', 17);
            text += '\n';
        }
        const QString path = test::writeTempFile(QStringLiteral("noise.csv"), text);
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, path));
        SourcesModule* module = sourcesOf(window);
        QString message;
        QVERIFY2(runSources(module, &message), qPrintable(message));
        const QJsonObject cli = cliSources(path);
        QCOMPARE(module->model()->rowCount(), cli[QStringLiteral("sources")].toArray().size());
        QCOMPARE(module->model()->rowCount(), 0);
        const QString note = window.resultsDock()->resultSetNote(window.resultsDock()->currentResultSet());
        QVERIFY(!note.isEmpty());
        if (cli.contains(QStringLiteral("note"))) QCOMPARE(note, cli[QStringLiteral("note")].toString());
        QVERIFY(window.resultsDock()->noteLabel()->isVisible());
    }
};

GLINT_GUI_TEST_MAIN(TestGuiSources)
#include "test_gui_sources.moc"
