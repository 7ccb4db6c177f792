#include "samp/SampHub.h"

#include "samp/SampError.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace glint::samp {

namespace {
[[noreturn]] void fail(const QString& message) { throw SampError(message.toStdString()); }
} // namespace

HubLocation readLockfile(const QString& path) {
    QFile file(path);
    if (!QFileInfo(path).isFile()) fail(QStringLiteral("%1 (no lockfile %2)").arg(QString::fromLatin1(kNoHubMessage), path));
    if (!file.open(QIODevice::ReadOnly))
        fail(QStringLiteral("cannot read the SAMP lockfile %1: %2").arg(path, file.errorString()));
    if (file.size() > 1 << 20) fail(QStringLiteral("the SAMP lockfile %1 is over 1 MiB: not a lockfile").arg(path));
    HubLocation hub;
    hub.lockfile = path;
    int lineNumber = 0;
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        ++lineNumber;
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0)
            fail(QStringLiteral("the SAMP lockfile %1, line %2, is not key=value: \"%3\"").arg(path).arg(lineNumber).arg(line.left(80)));
        const QString key = line.left(eq).trimmed();
        const QString value = line.mid(eq + 1).trimmed();
        if (key == u"samp.secret") hub.secret = value;
        else if (key == u"samp.hub.xmlrpc.url") hub.xmlrpcUrl = QUrl(value, QUrl::StrictMode);
        else if (key == u"samp.profile.version") hub.profileVersion = value;
    }
    if (hub.secret.isEmpty()) fail(QStringLiteral("the SAMP lockfile %1 has no samp.secret").arg(path));
    if (hub.xmlrpcUrl.isEmpty()) fail(QStringLiteral("the SAMP lockfile %1 has no samp.hub.xmlrpc.url").arg(path));
    const QString scheme = hub.xmlrpcUrl.scheme();
    if (!hub.xmlrpcUrl.isValid() || (scheme != u"http" && scheme != u"https") || hub.xmlrpcUrl.host().isEmpty())
        fail(QStringLiteral("the SAMP lockfile %1 has a samp.hub.xmlrpc.url that is not an http URL: \"%2\"")
                 .arg(path, hub.xmlrpcUrl.toString().left(200)));
    return hub;
}

HubLocation findHub() {
    const QString env = qEnvironmentVariable("SAMP_HUB");
    if (!env.isEmpty()) {
        const QString prefix = QStringLiteral("std-lockurl:");
        if (!env.startsWith(prefix))
            fail(QStringLiteral("SAMP_HUB is \"%1\": only the Standard Profile's std-lockurl:URL is understood").arg(env.left(200)));
        const QUrl url(env.mid(prefix.size()), QUrl::StrictMode);
        if (!url.isValid() || !url.isLocalFile())
            fail(QStringLiteral("SAMP_HUB names the lockfile \"%1\": only a file:// URL of a local file is read")
                     .arg(env.mid(prefix.size()).left(200)));
        return readLockfile(url.toLocalFile());
    }
    // The standard says the user's home directory; $HOME first, as astropy and JSAMP do.
    const QString home = qEnvironmentVariableIsEmpty("HOME") ? QDir::homePath() : qEnvironmentVariable("HOME");
    return readLockfile(QDir(home).filePath(QStringLiteral(".samp")));
}

} // namespace glint::samp
