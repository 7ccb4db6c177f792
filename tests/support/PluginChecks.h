// What the suites of the plugins opened on first use (test_codecs_plugin, test_dicom_plugin) share: a CSV
// input, which no plugin reads, the rows of a plugin that does not load, and the checks of glint-cli's runs
// under such a plugin.
#pragma once

#include "tests/support/TestSupport.h"

#include <QString>
#include <QStringList>
#include <QtTest>

namespace glint::test {

// A 3 x 3 CSV image (50 at the centre) in the temporary folder.
inline QString writeSmallCsv() { return writeTempFile("small.csv", "1,2,3\n4,50,6\n7,8,9\n"); }

// The columns "plugin" (the path the plugin's variable names) and "why" (what the error says), one row per
// way the plugin `name` (glint_codecs, glint_dicom) fails to load: missing, not a library, and a library
// without the plugin's factory.
inline void addBrokenPluginRows(const QString& name) {
    test::columns<QString, QString>({"plugin", "why"});
    QTest::newRow("missing") << "/nonexistent/" + name + ".so" << QString("cannot open shared object file");
    QTest::newRow("not a library") << QString(GLINT_SOURCE_DIR "/CMakeLists.txt") << QString("invalid ELF header");
    QTest::newRow("another library") << QString("libz.so.1") << "has no " + name + "_factory_v"; // any version of the interface
}

// None of the libraries (parts of file names) is mapped into this process yet.
inline void checkNoneMapped(const QStringList& names) {
    for (const QString& name : names) QVERIFY2(!libraryMapped(name.toStdString()), qPrintable(name + " is mapped"));
}

// The plugin is loaded (plugin() gives it, error() says nothing), one instance, with the libraries (parts of file
// names) mapped.
template <class Plugin, class Error>
void checkPluginLoaded(Plugin plugin, Error error, const QStringList& libraries) {
    QVERIFY2(plugin() != nullptr, error().c_str());
    QVERIFY(error().empty());
    for (const QString& name : libraries) QVERIFY2(libraryMapped(name.toStdString()), qPrintable(name + " is not mapped"));
    QVERIFY(plugin() == plugin());
}

// glint-cli info on `path` with the dynamic linker's list of what it maps (LD_DEBUG=files, on stderr): exit 0,
// every library of `mapped` in the list and none of `unmapped` (parts of file names). The run, for more checks.
inline CliResult checkInfoMaps(const QString& path, const QStringList& mapped, const QStringList& unmapped) {
    const CliResult r = runCliWithEnv({"info", path}, "LD_DEBUG", "files");
    [&] {
        QCOMPARE(r.exitCode, 0);
        for (const QString& name : mapped) QVERIFY2(r.err.contains(name.toUtf8()), qPrintable("glint-cli info " + path + " did not load " + name));
        for (const QString& name : unmapped) QVERIFY2(!r.err.contains(name.toUtf8()), qPrintable("glint-cli info " + path + " loaded " + name));
    }();
    return r;
}

// A read refused because the plugin does not load: exit 3, one line on stderr that starts with `start` and says
// `why`.
inline void checkRefusedRead(const CliResult& r, const QByteArray& start, const QString& why) {
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(oneErrorLine(r.err), r.err.constData());
    QVERIFY2(r.err.startsWith(start), r.err.constData());
    QVERIFY2(r.err.contains(why.toUtf8()), r.err.constData());
}

// With `variable` naming a plugin that does not load, a CSV file still opens: glint-cli info exits 0 and says
// nothing on stderr.
inline void checkCsvOpens(const QString& variable, const QString& plugin) {
    const CliResult text = runCliWithEnv({"info", writeSmallCsv()}, variable, plugin);
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.err.isEmpty());
}

} // namespace glint::test
