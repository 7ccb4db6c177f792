// File ▸ SAMP against astropy's hub and its two receivers (the ctest fixture "samp_hub", tests/samp/run_hub.py):
// the menu lists the receivers by name, "Send Image To" sends the FITS file on screen, "Send Catalogue To"
// the table the catalogue hook writes and is greyed while the hook has none; no hub, or a hub that stops
// while the window runs, is a message, never a hang or a crash.
#include "GuiTestSupport.h"
#include "tests/support/FitsFiles.h"
#include "tests/samp/SampTestSupport.h"
#include "tests/support/TestSupport.h"
#include "ui/samp/SampActions.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStatusBar>
#include <QTemporaryDir>

using namespace glint;

namespace {
using glint::test::fileBytes;
using glint::test::received;
QStringList actionTexts(QMenu* menu) {
    QStringList out;
    for (QAction* a : menu->actions())
        if (!a->isSeparator()) out << a->text().remove(QLatin1Char('&'));
    return out;
}
} // namespace

class TestGuiSamp : public QObject {
    Q_OBJECT
    QString dir_;
    QTemporaryDir tmp_;

    void useFixtureHub() {
        qputenv("SAMP_HUB", ("std-lockurl:" + QUrl::fromLocalFile(dir_ + "/lockfile").toString()).toUtf8());
    }

private slots:
    void initTestCase() {
        dir_ = qEnvironmentVariable("GLINT_SAMP_DIR");
        if (dir_.isEmpty()) QFAIL("GLINT_SAMP_DIR is not set: run this test through ctest (fixture samp_hub)");
        if (QFile::exists(dir_ + "/skip")) QSKIP(qPrintable("no SAMP hub to test against: " + fileBytes(dir_ + "/skip").trimmed()));
        QVERIFY2(QFile::exists(dir_ + "/ready"), "the samp_hub fixture did not start the hub");
    }

    void menuListsClientsAndSendsTheImage() {
        useFixtureHub();
        ui::MainWindow window({.persistSettings = false, .interactive = false});
        ui::SampActions* samp = window.samp();
        QVERIFY(samp);
        // The SAMP submenu sits in the File menu.
        QMenu* file = test::menuNamed(window, QStringLiteral("File"));
        QVERIFY(file && file->actions().contains(samp->menu()->menuAction()));
        // A CSV matrix is not a FITS file: nothing to send.
        window.openFile(test::writeTempFile(QStringLiteral("matrix.csv"), "1,2,3\n4,5,6\n7,8,9\n"));
        GLINT_WAIT_FOR_IMAGE(window);
        emit samp->menu()->aboutToShow();
        QVERIFY(!samp->imageMenu()->menuAction()->isEnabled());
        QVERIFY(!samp->sendImage());
        QVERIFY2(samp->lastError().contains(QStringLiteral("not a FITS file")), qPrintable(samp->lastError()));

        const QString fits = test::samplePath(QStringLiteral("ngc1316o.fit"));
        window.openFile(fits);
        GLINT_WAIT_FOR_IMAGE(window);
        emit samp->menu()->aboutToShow();
        QVERIFY(samp->imageMenu()->menuAction()->isEnabled());
        emit samp->imageMenu()->aboutToShow();
        const QStringList entries = actionTexts(samp->imageMenu());
        QCOMPARE(entries, (QStringList{"All Clients", "glint-test-receiver-a", "glint-test-receiver-b"}));
        // Receiver b's entry sends to it alone.
        const int before = received(dir_, "glint-test-receiver-b").size();
        samp->imageMenu()->actions().last()->trigger();
        QVERIFY2(samp->lastError().isEmpty(), qPrintable(samp->lastError()));
        QCOMPARE(samp->lastMessage(), QStringLiteral("Sent the image ngc1316o.fit to glint-test-receiver-b through SAMP"));
        QCOMPARE(window.statusBar()->currentMessage(), samp->lastMessage());
        QTRY_COMPARE_WITH_TIMEOUT(received(dir_, "glint-test-receiver-b").size(), before + 1, 10000);
        const QJsonObject got = received(dir_, "glint-test-receiver-b").constLast();
        QCOMPARE(got.value("mtype").toString(), QStringLiteral("image.load.fits"));
        const QString local = QUrl(got.value("params").toObject().value("url").toString()).toLocalFile();
        QCOMPARE(local, QFileInfo(fits).absoluteFilePath());
        QCOMPARE(fileBytes(local), fileBytes(fits));
        // All: both receivers take images.
        QVERIFY(samp->sendImage());
        QCOMPARE(samp->lastMessage(), QStringLiteral("Sent the image ngc1316o.fit to 2 SAMP clients"));
        qunsetenv("SAMP_HUB");
    }

    void catalogueFollowsTheHook() {
        useFixtureHub();
        ui::MainWindow window({.persistSettings = false, .interactive = false});
        ui::SampActions* samp = window.samp();
        emit samp->menu()->aboutToShow();
        QVERIFY(!samp->catalogueMenu()->menuAction()->isEnabled()); // no hook
        QVERIFY(!samp->sendCatalogue());
        QVERIFY(samp->lastError().contains(QStringLiteral("no source catalogue")));
        std::string path; // what the hook returns: empty (no catalogue) until a table is written
        int calls = 0;
        samp->setCatalogueProvider([&] {
            ++calls;
            return path;
        });
        emit samp->menu()->aboutToShow();
        QVERIFY(!samp->catalogueMenu()->menuAction()->isEnabled());
        const QString table = tmp_.filePath(QStringLiteral("sources.fits"));
        {
            fitsfile* f = nullptr;
            int status = 0;
            float flux[2] = {1.5f, 2.5f};
            fits_create_file(&f, ("!" + table).toLocal8Bit().constData(), &status);
            test::writeEmptyPrimaryAndCatalog(f, status);
            fits_write_col(f, TFLOAT, 1, 1, 1, 2, flux, &status);
            fits_close_file(f, &status);
            QCOMPARE(status, 0);
        }
        path = table.toStdString();
        emit samp->menu()->aboutToShow();
        QVERIFY(samp->catalogueMenu()->menuAction()->isEnabled());
        emit samp->catalogueMenu()->aboutToShow();
        QCOMPARE(actionTexts(samp->catalogueMenu()), (QStringList{"All Clients", "glint-test-receiver-a"}));
        const int before = received(dir_, "glint-test-receiver-a").size();
        const int callsBefore = calls;
        samp->catalogueMenu()->actions().first()->trigger(); // All Clients
        QVERIFY2(samp->lastError().isEmpty(), qPrintable(samp->lastError()));
        QCOMPARE(calls, callsBefore + 1); // the hook writes the table afresh for the send
        QTRY_COMPARE_WITH_TIMEOUT(received(dir_, "glint-test-receiver-a").size(), before + 1, 10000);
        const QJsonObject got = received(dir_, "glint-test-receiver-a").constLast();
        QCOMPARE(got.value("mtype").toString(), QStringLiteral("table.load.fits"));
        QCOMPARE(QUrl(got.value("params").toObject().value("url").toString()).toLocalFile(), table);
        qunsetenv("SAMP_HUB");
    }

    void noHubIsAMessage() {
        qputenv("SAMP_HUB", ("std-lockurl:" + QUrl::fromLocalFile(tmp_.filePath("no-lockfile")).toString()).toUtf8());
        ui::MainWindow window({.persistSettings = false, .interactive = false});
        ui::SampActions* samp = window.samp();
        window.openFile(test::samplePath(QStringLiteral("ngc1316o.fit")));
        GLINT_WAIT_FOR_IMAGE(window);
        emit samp->imageMenu()->aboutToShow();
        QCOMPARE(actionTexts(samp->imageMenu()), QStringList{"No SAMP Hub (start TOPCAT or DS9)"});
        QVERIFY(!samp->imageMenu()->actions().first()->isEnabled());
        QVERIFY(samp->lastError().startsWith(QStringLiteral("No SAMP hub running")));
        QVERIFY(!samp->sendImage());
        QVERIFY(samp->lastError().startsWith(QStringLiteral("No SAMP hub running")));
        QVERIFY(window.statusBar()->currentMessage().startsWith(QStringLiteral("No SAMP hub running")));
        qunsetenv("SAMP_HUB");
    }

    // A hub of the test's own stops (killed) between two sends: the second is a message within the timeout;
    // when a new hub comes, the next send reaches it without restarting the window.
    void hubStoppingAndRestarting() {
        const QString own = tmp_.filePath(QStringLiteral("own-hub"));
        qputenv("SAMP_HUB", ("std-lockurl:" + QUrl::fromLocalFile(own + "/lockfile").toString()).toUtf8());
        ui::MainWindow window({.persistSettings = false, .interactive = false});
        ui::SampActions* samp = window.samp();
        window.openFile(test::samplePath(QStringLiteral("ngc1316o.fit")));
        GLINT_WAIT_FOR_IMAGE(window);
        const auto startHub = [&](QProcess& p) { return test::startOwnHub(p, own); };
        QProcess first;
        QVERIFY(startHub(first));
        QVERIFY2(samp->sendImage(), qPrintable(samp->lastError()));
        first.kill();
        QVERIFY(first.waitForFinished(10000));
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!samp->sendImage());
        QVERIFY2(timer.elapsed() < 12000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(!samp->lastError().isEmpty());
        QFile::remove(own + "/lockfile"); // a killed hub leaves its lockfile; the next hub writes its own
        QProcess second;
        QVERIFY(startHub(second));
        QVERIFY2(samp->sendImage(), qPrintable(samp->lastError()));
        QCOMPARE(samp->lastMessage(), QStringLiteral("Sent the image ngc1316o.fit to 2 SAMP clients"));
        // Cleanup, not the behaviour under test: astropy's hub may take longer than 10 s to say goodbye to its
        // clients on a loaded machine; then it is killed.
        second.terminate();
        if (!second.waitForFinished(10000)) {
            second.kill();
            QVERIFY(second.waitForFinished(10000));
        }
        qunsetenv("SAMP_HUB");
    }
};

GLINT_GUI_TEST_MAIN(TestGuiSamp)
#include "test_gui_samp.moc"
