// Finding the SAMP hub (IVOA SAMP 1.3, Standard Profile §3.3): $SAMP_HUB ("std-lockurl:" + a file:// URL of
// the lockfile) when set, else the lockfile ~/.samp; the lockfile's key=value lines give the secret and the
// hub's XML-RPC address.
#pragma once

#include <QString>
#include <QUrl>

namespace glint::samp {

struct HubLocation {
    QString lockfile;       // the file it was read from
    QString secret;         // samp.secret
    QUrl xmlrpcUrl;         // samp.hub.xmlrpc.url
    QString profileVersion; // samp.profile.version (may be empty)
};

// The hub named by $SAMP_HUB or ~/.samp. Throws SampError with kNoHubMessage when there is no lockfile, and
// a message naming the file and the key for a lockfile that cannot be read, lacks a key or holds a bad URL.
HubLocation findHub();
// The hub of one lockfile (the same checks).
HubLocation readLockfile(const QString& path);

} // namespace glint::samp
