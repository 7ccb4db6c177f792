// SAMP against a real hub: astropy's SAMPHubServer with two receiving clients, started by the ctest fixture
// "samp_hub" (tests/samp/run_hub.py, GLINT_SAMP_DIR). Glint registers, lists the receivers by name, sends a
// FITS image and a FITS table, and each receiver's log must show the right MType and a URL of the same
// bytes. Also: no hub, a hub that stopped, a hub that never answers, bad lockfiles: clear errors, in time.
#include "tests/samp/SampTestSupport.h"
#include "samp/SampClient.h"
#include "samp/SampError.h"
#include "tests/support/FitsFiles.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace glint::samp;

namespace {
const QString kReceiverA = QStringLiteral("glint-test-receiver-a"); // tables and images
const QString kReceiverB = QStringLiteral("glint-test-receiver-b"); // images only

using glint::test::fileBytes;
using glint::test::received;

// A small FITS image (16 × 8 int16 ramp) and a FITS binary table (FLUX, two rows), written by CFITSIO.
void writeFitsImage(const QString& path) {
    fitsfile* f = nullptr;
    int status = 0;
    long axes[2] = {16, 8};
    short pixels[16 * 8];
    for (int i = 0; i < 16 * 8; ++i) pixels[i] = static_cast<short>(i * 3);
    fits_create_file(&f, ("!" + path).toLocal8Bit().constData(), &status);
    fits_create_img(f, SHORT_IMG, 2, axes, &status);
    fits_write_img(f, TSHORT, 1, 16 * 8, pixels, &status);
    fits_close_file(f, &status);
    QCOMPARE(status, 0);
}
void writeFitsTable(const QString& path) {
    fitsfile* f = nullptr;
    int status = 0;
    float flux[2] = {12.5f, 3.25f};
    fits_create_file(&f, ("!" + path).toLocal8Bit().constData(), &status);
    glint::test::writeEmptyPrimaryAndCatalog(f, status);
    fits_write_col(f, TFLOAT, 1, 1, 1, 2, flux, &status);
    fits_close_file(f, &status);
    QCOMPARE(status, 0);
}

void writeLockfile(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}
} // namespace

class TestSampHub : public QObject {
    Q_OBJECT
    QString dir_;      // the fixture's folder
    QTemporaryDir tmp_;

    HubLocation fixtureHub() { return readLockfile(dir_ + "/lockfile"); }
    // The error message of `f`, which must throw SampError.
    template <class F>
    QString errorOf(F&& f) {
        try {
            f();
        } catch (const SampError& e) {
            return QString::fromStdString(e.what());
        }
        return QStringLiteral("(no error)");
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        dir_ = qEnvironmentVariable("GLINT_SAMP_DIR");
        if (dir_.isEmpty()) QFAIL("GLINT_SAMP_DIR is not set: run this test through ctest (fixture samp_hub)");
        if (QFile::exists(dir_ + "/skip")) QSKIP(qPrintable("no SAMP hub to test against: " + fileBytes(dir_ + "/skip").trimmed()));
        QVERIFY2(QFile::exists(dir_ + "/ready"), "the samp_hub fixture did not start the hub (see its output in ctest's log)");
    }

    void findsTheHubThroughSampHub() {
        qputenv("SAMP_HUB", ("std-lockurl:" + QUrl::fromLocalFile(dir_ + "/lockfile").toString()).toUtf8());
        const HubLocation hub = findHub();
        QCOMPARE(hub.lockfile, dir_ + "/lockfile");
        QVERIFY(!hub.secret.isEmpty());
        QCOMPARE(hub.xmlrpcUrl.scheme(), QStringLiteral("http"));
        QCOMPARE(hub.profileVersion, QStringLiteral("1.3"));
        SampClient client; // registers through $SAMP_HUB
        QVERIFY(!client.selfId().isEmpty());
        QVERIFY(client.ping());
        qunsetenv("SAMP_HUB");
    }

    void listsTheReceiversByName() {
        SampClient client(fixtureHub(), {});
        const QVector<SampPeer> images = client.listClients(QStringLiteral("image.load.fits"));
        QCOMPARE(images.size(), 2);
        QCOMPARE(images[0].name, kReceiverA);
        QCOMPARE(images[1].name, kReceiverB);
        const QVector<SampPeer> tables = client.listClients(QStringLiteral("table.load.fits"));
        QCOMPARE(tables.size(), 1);
        QCOMPARE(tables[0].name, kReceiverA);
        QVERIFY(client.listClients(QStringLiteral("spectrum.load.ssa-generic")).isEmpty());
        // The receivers see Glint by its declared name.
        SampClientOptions named;
        named.name = QStringLiteral("Glint-under-test");
        SampClient second(fixtureHub(), named);
        bool seen = false;
        for (const SampPeer& p : second.listClients(QStringLiteral("image.load.fits"))) seen |= p.id == client.selfId();
        QVERIFY(!seen); // Glint subscribes to nothing: it never receives
    }

    void sendsAnImageToOneClient() {
        const QString path = tmp_.filePath(QStringLiteral("my image.fits")); // a space: the URL encodes it
        writeFitsImage(path);
        SampClient client(fixtureHub(), {});
        const QVector<SampPeer> peers = client.listClients(QStringLiteral("image.load.fits"));
        QCOMPARE(peers.size(), 2);
        const int before = received(dir_, kReceiverB).size(); // other suites share the receivers
        const SampSent sent = client.sendImage(path, QStringLiteral("M31 frame"), peers[1].id); // receiver b only
        QCOMPARE(sent.mtype, QStringLiteral("image.load.fits"));
        QCOMPARE(sent.recipients, QStringList{peers[1].id});
        QCOMPARE(sent.url, QUrl::fromLocalFile(path).toString(QUrl::FullyEncoded));
        QVERIFY(sent.url.contains(QStringLiteral("my%20image.fits")));
        QTRY_COMPARE_WITH_TIMEOUT(received(dir_, kReceiverB).size(), before + 1, 10000);
        const QJsonObject got = received(dir_, kReceiverB).constLast();
        QCOMPARE(got.value("mtype").toString(), QStringLiteral("image.load.fits"));
        QCOMPARE(got.value("sender").toString(), client.selfId());
        const QJsonObject params = got.value("params").toObject();
        QCOMPARE(params.value("name").toString(), QStringLiteral("M31 frame"));
        QVERIFY(params.value("image-id").toString().startsWith(QStringLiteral("glint-image-")));
        const QUrl url(params.value("url").toString());
        QVERIFY(url.isLocalFile());
        QCOMPARE(url.toLocalFile(), path);
        QCOMPARE(fileBytes(url.toLocalFile()), fileBytes(path));
        QVERIFY(!fileBytes(path).isEmpty());
        // Receiver a was not addressed.
        QTest::qWait(300);
        for (const QJsonObject& m : received(dir_, kReceiverA)) QVERIFY(m.value("params").toObject().value("url") != sent.url);
    }

    void sendsATableToAll() {
        const QString path = tmp_.filePath(QStringLiteral("catalogue.fits"));
        writeFitsTable(path);
        SampClient client(fixtureHub(), {});
        const int before = received(dir_, kReceiverA).size();
        const SampSent sent = client.sendTable(path); // to all: only receiver a takes tables
        QCOMPARE(sent.mtype, QStringLiteral("table.load.fits"));
        QCOMPARE(sent.recipients.size(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(received(dir_, kReceiverA).size(), before + 1, 10000);
        const QJsonObject got = received(dir_, kReceiverA).constLast();
        QCOMPARE(got.value("mtype").toString(), QStringLiteral("table.load.fits"));
        const QJsonObject params = got.value("params").toObject();
        QCOMPARE(params.value("name").toString(), QStringLiteral("catalogue.fits"));
        QVERIFY(params.value("table-id").toString().startsWith(QStringLiteral("glint-table-")));
        const QString local = QUrl(params.value("url").toString()).toLocalFile();
        QCOMPARE(local, path);
        QCOMPARE(fileBytes(local), fileBytes(path));
        for (const QJsonObject& m : received(dir_, kReceiverB)) QVERIFY(m.value("mtype").toString() != "table.load.fits");
    }

    void choosesTheTableMtypeBySuffix() {
        QCOMPARE(SampClient::tableMtype("/a/b.FITS"), QStringLiteral("table.load.fits"));
        QCOMPARE(SampClient::tableMtype("/a/b.vot"), QStringLiteral("table.load.votable"));
        QCOMPARE(SampClient::tableMtype("/a/b.xml"), QStringLiteral("table.load.votable"));
        QCOMPARE(SampClient::tableMtype("/a/b.csv"), QString());
        SampClient client(fixtureHub(), {});
        const QString csv = tmp_.filePath(QStringLiteral("t.csv"));
        writeLockfile(csv, "a,b\n1,2\n");
        QVERIFY(errorOf([&] { client.sendTable(csv); }).contains(QStringLiteral("SAMP tables are FITS")));
        QVERIFY(errorOf([&] { client.sendImage(csv); }).contains(QStringLiteral("FITS files only")));
        QVERIFY(errorOf([&] { client.sendImage(tmp_.filePath("missing.fits")); }).contains(QStringLiteral("no such file")));
    }

    void noHubIsAClearErrorInTime() {
        // No lockfile at all.
        qputenv("SAMP_HUB", ("std-lockurl:" + QUrl::fromLocalFile(tmp_.filePath("nothing")).toString()).toUtf8());
        QVERIFY(errorOf([] { SampClient c; }).startsWith(QLatin1String(kNoHubMessage)));
        qunsetenv("SAMP_HUB");
        qputenv("HOME", tmp_.path().toUtf8()); // no ~/.samp
        QVERIFY(errorOf([] { SampClient c; }).startsWith(QLatin1String(kNoHubMessage)));
        // A lockfile left by a hub that stopped: its port refuses connections.
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const quint16 port = closed.serverPort();
        closed.close();
        const QString stale = tmp_.filePath("stale");
        writeLockfile(stale, "samp.secret=abc\nsamp.hub.xmlrpc.url=http://127.0.0.1:" + QByteArray::number(port) + "/\n");
        QElapsedTimer timer;
        timer.start();
        const QString message = errorOf([&] { SampClient c(readLockfile(stale), {}); });
        QVERIFY2(message.startsWith(QLatin1String(kNoHubMessage)), qPrintable(message));
        QVERIFY(timer.elapsed() < XmlRpcClient::kDefaultTimeoutMs);
    }

    void silentHubTimesOut() {
        QTcpServer silent; // accepts, never answers
        QVERIFY(silent.listen(QHostAddress::LocalHost));
        const QString lock = tmp_.filePath("silent");
        writeLockfile(lock, "samp.secret=abc\nsamp.hub.xmlrpc.url=http://127.0.0.1:" + QByteArray::number(silent.serverPort()) + "/\n");
        SampClientOptions options;
        options.timeoutMs = 700;
        QElapsedTimer timer;
        timer.start();
        const QString message = errorOf([&] { SampClient c(readLockfile(lock), options); });
        const qint64 ms = timer.elapsed();
        QVERIFY2(message.contains(QStringLiteral("did not answer samp.hub.register within 0.7 s")), qPrintable(message));
        QVERIFY2(ms >= 650 && ms < 3000, qPrintable(QString::number(ms)));
    }

    void badLockfilesAreClearErrors_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no secret") << QByteArray("samp.hub.xmlrpc.url=http://127.0.0.1:1/\n") << "has no samp.secret";
        QTest::newRow("no url") << QByteArray("# comment\nsamp.secret=x\n") << "has no samp.hub.xmlrpc.url";
        QTest::newRow("not key=value") << QByteArray("samp.secret=x\ngarbage line\n") << "line 2, is not key=value";
        QTest::newRow("not http") << QByteArray("samp.secret=x\nsamp.hub.xmlrpc.url=ftp://h/\n") << "is not an http URL";
        QTest::newRow("binary") << QByteArray("\x7f" "ELF\x02\x01\x01") << "is not key=value";
    }
    void badLockfilesAreClearErrors() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const QString path = tmp_.filePath("bad-lockfile");
        writeLockfile(path, text);
        const QString message = errorOf([&] { readLockfile(path); });
        QVERIFY2(message.contains(expected) && message.contains(path), qPrintable(message));
    }

    void badSampHubVariable() {
        qputenv("SAMP_HUB", "std-lockurl:http://example.org/lock");
        QVERIFY(errorOf([] { findHub(); }).contains(QStringLiteral("only a file:// URL")));
        qputenv("SAMP_HUB", "web-profile");
        QVERIFY(errorOf([] { findHub(); }).contains(QStringLiteral("only the Standard Profile's std-lockurl")));
        qunsetenv("SAMP_HUB");
    }

    // A hub of this test's own that stops while Glint is registered: the next call is a clear error within
    // the timeout, and the destructor's unregister does not hang.
    void hubStoppingMidSession() {
        const QString own = tmp_.filePath(QStringLiteral("own-hub"));
        QProcess hubProcess;
        QVERIFY(glint::test::startOwnHub(hubProcess, own));
        auto client = std::make_unique<SampClient>(readLockfile(own + "/lockfile"), SampClientOptions{});
        QCOMPARE(client->listClients(QStringLiteral("image.load.fits")).size(), 2);
        hubProcess.kill(); // no goodbye: as a hub that crashed
        QVERIFY(hubProcess.waitForFinished(10000));
        QElapsedTimer timer;
        timer.start();
        const QString message = errorOf([&] { client->listClients(QStringLiteral("image.load.fits")); });
        QVERIFY2(message.startsWith(QLatin1String(kNoHubMessage)) || message.contains(QStringLiteral("did not answer")),
                 qPrintable(message));
        QVERIFY(!client->ping());
        client.reset();
        QVERIFY2(timer.elapsed() < 2 * XmlRpcClient::kDefaultTimeoutMs + 2000, qPrintable(QString::number(timer.elapsed())));
    }

    void wrongSecretIsTheHubsFault() {
        HubLocation hub = fixtureHub();
        hub.secret = QStringLiteral("not-the-secret");
        QVERIFY(errorOf([&] { SampClient c(hub, {}); }).contains(QStringLiteral("Bad secret code")));
    }
};

QTEST_GUILESS_MAIN(TestSampHub)
#include "test_samp_hub.moc"
