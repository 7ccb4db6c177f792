// The image's kind chosen by hand (issue 33): the Brightest panel's Kind box lists auto (naming the kind found by
// content) and each kind. Choosing one sets that kind's preset in the form (as opening an image of that kind does,
// with a mammogram's automatic exclusions) in one undoable step, and the window's run then equals
// `glint-cli brightest --preset KIND`, region for region and parameter for parameter. The choice is remembered per
// file for the session; opening another file starts at auto.
#include "tests/gui/test_gui_brightest_support.h"

#include "core/algo/brightest/BrightestSpec.h"
#include "core/params/ImageKind.h"
#include "ui/params/SpecForm.h"
#include "ui/session/SessionJson.h"

#include <QComboBox>
#include <QUndoStack>

using namespace glint::test::brightest;

namespace {

QComboBox* kindBox(BrightestModule* module) { return module->panel()->kindBox(); }

void choose(BrightestModule* module, const QString& name) {
    QComboBox* box = kindBox(module);
    const int index = box->findData(name);
    QVERIFY2(index >= 0, qPrintable(name));
    box->setCurrentIndex(index); // as a click on the item does
}

// The form holds `kind`'s preset in every field it has (nothing was changed by hand in these tests).
bool formHoldsPreset(BrightestModule* module, glint::ImageKind kind, QString* why) {
    const glint::Json preset = glint::brightestSpec().presetValues(kind);
    const glint::Json form = module->panel()->form()->allValues();
    for (const auto& [key, value] : preset.items()) {
        if (!module->panel()->form()->editor(key) || !form.contains(key)) continue;
        if (form[key] != value) {
            *why = QString::fromStdString(key + ": form " + form[key].dump() + ", preset " + value.dump());
            return false;
        }
    }
    return true;
}

// Ctrl+B in the window against `glint-cli brightest FILE --preset KIND`: the same regions and parameters.
void sameAsCli(MainWindow& window, BrightestModule* module, const QString& path, const QString& kind) {
    QAction* kBrightest = nullptr;
    for (QAction* a : module->actions())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_B)) kBrightest = a;
    QVERIFY(kBrightest);
    QString message;
    QVERIFY2(runAndWait(module, [&] { kBrightest->trigger(); }, &message), qPrintable(message));
    const QVector<Region> shown = shownRegions(module->regionLayer(), module->model());
    QVERIFY(!shown.isEmpty());
    QString error;
    const QVector<Region> cli = cliRegions(path, {QStringLiteral("--preset"), kind}, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(sameRegions(shown, cli), qPrintable(QStringLiteral("window: %1\ncli:    %2").arg(describe(shown), describe(cli))));
    const test::CliResult run = test::runCli({QStringLiteral("brightest"), path, QStringLiteral("--preset"), kind,
                                              QStringLiteral("--json"), QStringLiteral("-")});
    QCOMPARE(run.exitCode, 0);
    QJsonObject cliParameters = QJsonDocument::fromJson(run.out).object()[QStringLiteral("parameters")].toObject();
    QJsonObject windowParameters = sessionjson::fromJson(module->runs().back().parameters);
    QCOMPARE(windowParameters[QStringLiteral("preset")].toString(), kind);
    // The window lists the automatic shapes as exclusions, the CLI finds them itself: compare the rest.
    for (const char* key : {"exclude", "exclude_polygon", "auto_exclude"}) {
        windowParameters.remove(QLatin1String(key));
        cliParameters.remove(QLatin1String(key));
    }
    QCOMPARE(windowParameters, cliParameters);
    Q_UNUSED(window);
}

// Opens another file in the shown window and waits until it is the one drawn.
bool openAndWait(MainWindow& window, const QString& path) {
    window.openFile(path);
    return QTest::qWaitFor([&] { return window.context().imagePath() == path && test::imageShown(window.context()); }, 30000);
}

} // namespace

class TestGuiKindChoice : public QObject {
    Q_OBJECT

private slots:
    void mammogramOnAerialPhotograph() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG files");
        const QString aero = test::samplePath(QStringLiteral("aero.png"));
        const QString film = test::samplePath(QStringLiteral("synthetic-mammogram.png"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, aero));
        BrightestModule* module = findModule(window);
        QVERIFY(waitForAutoExclusion(module));
        QComboBox* box = kindBox(module);
        QCOMPARE(box->currentData().toString(), QStringLiteral("auto"));
        QCOMPARE(box->currentText(), QStringLiteral("auto (other)"));
        QCOMPARE(box->count(), 5); // auto and each kind
        QCOMPARE(module->kind(), glint::ImageKind::Other);
        const glint::Json before = module->panel()->form()->allValues();
        QCOMPARE(module->exclusionCount(), 0);
        QUndoStack* undo = window.context().undoStack();
        const int steps = undo->count();

        choose(module, QStringLiteral("mammogram"));
        QVERIFY(waitForAutoExclusion(module));
        QCOMPARE(module->kind(), glint::ImageKind::Mammogram);
        QString why;
        QVERIFY2(formHoldsPreset(module, glint::ImageKind::Mammogram, &why), qPrintable(why));
        QVERIFY(module->panel()->form()->allValues() != before);
        QCOMPARE(undo->count(), steps + 1); // the kind and its automatic shapes: one step
        QCOMPARE(undo->undoText(), QStringLiteral("Kind: mammogram"));
        const int shapes = module->exclusionCount();
        sameAsCli(window, module, aero, QStringLiteral("mammogram"));
        if (QTest::currentTestFailed()) return;

        undo->undo();
        QCOMPARE(module->panel()->form()->allValues(), before);
        QCOMPARE(module->exclusionCount(), 0);
        QCOMPARE(box->currentData().toString(), QStringLiteral("auto"));
        QCOMPARE(module->kind(), glint::ImageKind::Other);
        QVERIFY(!module->currentRequest(0).contains("preset") || module->currentRequest(0)["preset"] == "other");
        undo->redo();
        QCOMPARE(module->kind(), glint::ImageKind::Mammogram);
        QCOMPARE(module->exclusionCount(), shapes);
        QVERIFY2(formHoldsPreset(module, glint::ImageKind::Mammogram, &why), qPrintable(why));

        // Another file starts at auto; this one keeps its choice for the session.
        QVERIFY(openAndWait(window, film));
        QVERIFY(waitForAutoExclusion(module));
        QCOMPARE(box->currentData().toString(), QStringLiteral("auto"));
        QCOMPARE(box->currentText(), QStringLiteral("auto (mammogram)"));
        QVERIFY(!module->chosenKind());
        QVERIFY(openAndWait(window, aero));
        QVERIFY(waitForAutoExclusion(module));
        QCOMPARE(box->currentData().toString(), QStringLiteral("mammogram"));
        QCOMPARE(module->kind(), glint::ImageKind::Mammogram);
        QVERIFY2(formHoldsPreset(module, glint::ImageKind::Mammogram, &why), qPrintable(why));
        QCOMPARE(module->exclusionCount(), shapes);
    }

    void skyOnMammogramDropsItsAutomaticShapes() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG files");
        const QString film = test::samplePath(QStringLiteral("synthetic-mammogram.png"));
        MainWindow window({false, false});
        QVERIFY(showAndOpen(window, film));
        BrightestModule* module = findModule(window);
        QVERIFY(waitForAutoExclusion(module));
        const int automatic = module->exclusionCount();
        QVERIFY(automatic > 0);
        module->addExclusionRectangle(QRect(10, 10, 20, 20)); // drawn by hand: it stays
        QCOMPARE(module->exclusionCount(), automatic + 1);
        const glint::Json before = module->panel()->form()->allValues();

        choose(module, QStringLiteral("sky"));
        QCOMPARE(module->kind(), glint::ImageKind::Sky);
        QCOMPARE(module->exclusionCount(), 1);
        QString why;
        QVERIFY2(formHoldsPreset(module, glint::ImageKind::Sky, &why), qPrintable(why));

        QUndoStack* undo = window.context().undoStack();
        undo->undo();
        QCOMPARE(module->exclusionCount(), automatic + 1);
        QCOMPARE(module->panel()->form()->allValues(), before);
        QCOMPARE(kindBox(module)->currentData().toString(), QStringLiteral("auto"));

        // Back to auto after a choice: the found kind's preset, as when the file was opened.
        choose(module, QStringLiteral("other"));
        QVERIFY2(formHoldsPreset(module, glint::ImageKind::Other, &why), qPrintable(why));
        choose(module, QStringLiteral("auto"));
        QVERIFY(waitForAutoExclusion(module));
        QVERIFY2(formHoldsPreset(module, glint::ImageKind::Mammogram, &why), qPrintable(why));
        QCOMPARE(module->exclusionCount(), automatic + 1);
    }
};

QTEST_MAIN(TestGuiKindChoice)
#include "test_gui_kind_choice.moc"
