// Glint as a SAMP client (IVOA SAMP 1.3, Standard Profile) that only sends: it registers with the hub,
// declares its metadata, lists the clients that take a message type and sends them a FITS image
// (image.load.fits) or a table (table.load.fits / table.load.votable) as a file:// URL. It declares no
// callback, so the hub never calls back; every call is synchronous with a timeout (XmlRpcClient).
#pragma once

#include "samp/SampHub.h"
#include "samp/XmlRpcClient.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>

namespace glint::samp {

struct SampPeer {
    QString id;   // the hub's public id ("cli#2"): a recipient for send*()
    QString name; // its samp.name ("topcat", "SAOImageDS9"), or the id when it declared none
};

struct SampClientOptions {
    QString name = QStringLiteral("Glint");
    QString description = QStringLiteral("Glint: finds what stands out in images (sources, regions, lines)");
    QString iconUrl;  // samp.icon.url, left out when empty
    int timeoutMs = XmlRpcClient::kDefaultTimeoutMs;
};

// What a send went to: the recipients' ids (notifyAll: every subscribed client; empty when none took it).
struct SampSent {
    QString mtype;
    QString url;
    QStringList recipients;
};

class SampClient {
public:
    // Finds the hub (findHub()), registers and declares the metadata. Throws SampError.
    explicit SampClient(SampClientOptions options = {});
    // The same with a hub found elsewhere (tests, a lockfile named by the user).
    SampClient(const HubLocation& hub, SampClientOptions options);
    // Unregisters (a short timeout; a hub already gone is no error).
    ~SampClient();
    SampClient(const SampClient&) = delete;
    SampClient& operator=(const SampClient&) = delete;

    QString selfId() const { return selfId_; }
    QString hubId() const { return hubId_; }
    const HubLocation& hub() const { return hub_; }

    // The clients subscribed to `mtype` (this one left out), each with its samp.name; sorted by name.
    QVector<SampPeer> listClients(const QString& mtype);
    // Sends a table: table.load.fits for .fits/.fit/.fts, table.load.votable for .xml/.vot/.votable (any
    // other suffix is an error). `recipientId` empty: to every subscribed client (notifyAll), else to that
    // client (notify). `name` empty: the file's name. The file must exist; its URL is file:// of its
    // absolute path. Throws SampError.
    SampSent sendTable(const QString& path, const QString& name = {}, const QString& recipientId = {});
    // Sends a FITS image (image.load.fits); the file must begin as FITS does ("SIMPLE  =").
    SampSent sendImage(const QString& path, const QString& name = {}, const QString& recipientId = {});
    // samp.hub.ping: true when the hub answers within the timeout.
    bool ping();

    // The MType for a table of this file name (empty when none).
    static QString tableMtype(const QString& path);
    // True when the file begins with FITS's first card.
    static bool looksLikeFits(const QString& path);

private:
    void registerWithHub(const SampClientOptions& options);
    QVariant hubCall(const QString& method, QVariantList params);
    SampSent send(const QString& mtype, const QString& path, const QString& idKey, const QString& name,
                  const QString& recipientId);

    HubLocation hub_;
    std::unique_ptr<XmlRpcClient> rpc_;
    QString privateKey_;
    QString selfId_;
    QString hubId_;
};

} // namespace glint::samp
