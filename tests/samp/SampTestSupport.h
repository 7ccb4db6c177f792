// The SAMP tests' support: what the receivers of tests/samp/run_hub.py logged, and a SAMP hub of a test's own (tests/samp/run_hub.py serve DIR, under the python the samp_hub fixture found): for the
// tests that stop a hub mid-session. The fixture's environment names the python and the script.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>
#include <QTest>

namespace glint::test {

// Starts the hub in `dir` and waits (30 s at most) for its "ready" file; false when it did not come up or the
// fixture's environment is missing.
inline bool startOwnHub(QProcess& process, const QString& dir) {
    const QString python = qEnvironmentVariable("GLINT_SAMP_PYTHON");
    const QString script = qEnvironmentVariable("GLINT_SAMP_SCRIPT");
    if (python.isEmpty() || script.isEmpty()) return false;
    QFile::remove(dir + "/ready");
    process.setProcessChannelMode(QProcess::ForwardedChannels);
    process.start(python, {script, QStringLiteral("serve"), dir});
    return QTest::qWaitFor([&] { return QFile::exists(dir + "/ready"); }, 30000);
}

inline QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The messages a receiver of run_hub.py logged in `dir` (one JSON object a line).
inline QList<QJsonObject> received(const QString& dir, const QString& receiver) {
    QList<QJsonObject> out;
    for (const QByteArray& line : fileBytes(dir + "/received-" + receiver + ".jsonl").split('\n'))
        if (!line.trimmed().isEmpty()) out.append(QJsonDocument::fromJson(line).object());
    return out;
}

} // namespace glint::test
