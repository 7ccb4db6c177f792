// The window on a DICOM CT (CT_small.dcm): the display dock's window chooser lists the header's windows
// and the CT presets and shows the image through the one chosen; the readout gives values in HU; File ▸
// Export as DICOM CAD SR / Presentation State is enabled for the DICOM image only and writes a DICOM file
// (an SR without findings when nothing was run).
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"
#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/StatusReadout.h"
#include "ui/display/DicomWindowChooser.h"
#include "ui/export/DicomExportActions.h"
#include "core/display/Display.h"
#include "core/io/DicomVoi.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QtTest>

using namespace glint;
using namespace glint::ui;

class TestGuiDicomDisplay : public QObject {
    Q_OBJECT

private slots:
    void ctPresetsReadoutAndExport() {
        GLINT_REAL_FILE(path, "CT_small.dcm");
        MainWindow window(MainWindowOptions{false, false});
        window.show();
        window.openFile(path);
        GLINT_WAIT_FOR_IMAGE(window);
        const auto image = window.context().image();
        QVERIFY(image && image->meta.voi);
        auto* chooser = window.findChild<DicomWindowChooser*>();
        QVERIFY(chooser && !chooser->isHidden());
        QCOMPARE(chooser->box()->count(), image->meta.voi->choiceCount());
        const int lung = chooser->box()->findText(QStringLiteral("lung (C -600 W 1500)"));
        QVERIFY(lung >= 0);
        emit chooser->box()->activated(lung);
        QCOMPARE(window.context().displaySettings().limits, LimitsMode::Window);
        QCOMPARE(window.context().displaySettings().voiChoice, lung);
        QCOMPARE(window.context().displayLimits().low, -1350.0);
        QCOMPARE(window.context().displayLimits().high, 150.0);
        QCOMPARE(chooser->box()->currentIndex(), lung);
        QCOMPARE(StatusReadout::formatValue(*image, 64, 64), QStringLiteral("value 904 HU"));

        auto* exports = window.findChild<DicomExportActions*>();
        QVERIFY(exports);
#if GLINT_TEST_HAVE_DCMTK
        QVERIFY(exports->actions().front()->isEnabled());
        const QString sr = test::tempDir() + "/ct-sr.dcm";
        QVERIFY(exports->exportTo(sr, false));
        const std::string bytes = test::readFileString(sr);
        QVERIFY(bytes.size() > 132 && bytes.compare(128, 4, "DICM") == 0);
        QVERIFY(bytes.find("111241") != std::string::npos); // without findings: nothing was run
#endif
        window.openFile(test::samplePath(QStringLiteral("aero.png")));
        QTRY_VERIFY_WITH_TIMEOUT(window.context().imagePath().endsWith(QLatin1String("aero.png")), 30000);
        QVERIFY(!exports->actions().front()->isEnabled());
        QVERIFY(chooser->isHidden());
    }
};

QTEST_MAIN(TestGuiDicomDisplay)
#include "test_gui_dicom_display.moc"
