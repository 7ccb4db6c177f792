#include "samp/SampClient.h"

#include "samp/SampError.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace glint::samp {

namespace {
[[noreturn]] void fail(const QString& message) { throw SampError(message.toStdString()); }

// The unregister call of the destructor: short, since the hub may be gone.
constexpr int kUnregisterTimeoutMs = 1000;

// A table/image id that names this file: the same file sent twice is the same dataset for the receiver.
QString datasetId(const QString& prefix, const QString& absolutePath) {
    const QByteArray hash = QCryptographicHash::hash(absolutePath.toUtf8(), QCryptographicHash::Sha1).toHex().left(12);
    return QStringLiteral("glint-%1-%2").arg(prefix, QString::fromLatin1(hash));
}
} // namespace

SampClient::SampClient(SampClientOptions options) : SampClient(findHub(), std::move(options)) {}

SampClient::SampClient(const HubLocation& hub, SampClientOptions options)
    : hub_(hub), rpc_(std::make_unique<XmlRpcClient>(hub.xmlrpcUrl, options.timeoutMs)) {
    registerWithHub(options);
}

SampClient::~SampClient() {
    if (privateKey_.isEmpty()) return;
    try {
        rpc_->call(QStringLiteral("samp.hub.unregister"), {privateKey_}, kUnregisterTimeoutMs);
    } catch (const std::exception&) {
        // The hub has stopped or forgotten us: nothing is left to undo.
    }
}

void SampClient::registerWithHub(const SampClientOptions& options) {
    const QVariantMap ids = rpc_->call(QStringLiteral("samp.hub.register"), {hub_.secret}).toMap();
    privateKey_ = ids.value(QStringLiteral("samp.private-key")).toString();
    selfId_ = ids.value(QStringLiteral("samp.self-id")).toString();
    hubId_ = ids.value(QStringLiteral("samp.hub-id")).toString();
    if (privateKey_.isEmpty()) fail(QStringLiteral("the SAMP hub at %1 registered Glint without a private key").arg(hub_.xmlrpcUrl.toDisplayString()));
    QVariantMap metadata{{QStringLiteral("samp.name"), options.name},
                         {QStringLiteral("samp.description.text"), options.description},
                         {QStringLiteral("glint.version"), QStringLiteral(GLINT_SAMP_VERSION)}};
    if (!options.iconUrl.isEmpty()) metadata.insert(QStringLiteral("samp.icon.url"), options.iconUrl);
    hubCall(QStringLiteral("samp.hub.declareMetadata"), {metadata});
}

QVariant SampClient::hubCall(const QString& method, QVariantList params) {
    params.prepend(privateKey_);
    return rpc_->call(method, params);
}

bool SampClient::ping() {
    try {
        rpc_->call(QStringLiteral("samp.hub.ping"), {}); // the Standard Profile's ping takes no key
        return true;
    } catch (const SampError&) {
        return false;
    }
}

QVector<SampPeer> SampClient::listClients(const QString& mtype) {
    const QVariantMap subscribed = hubCall(QStringLiteral("samp.hub.getSubscribedClients"), {mtype}).toMap();
    QVector<SampPeer> peers;
    for (auto it = subscribed.cbegin(); it != subscribed.cend(); ++it) {
        if (it.key() == selfId_) continue;
        const QVariantMap meta = hubCall(QStringLiteral("samp.hub.getMetadata"), {it.key()}).toMap();
        const QString name = meta.value(QStringLiteral("samp.name")).toString();
        peers.append({it.key(), name.isEmpty() ? it.key() : name});
    }
    std::sort(peers.begin(), peers.end(), [](const SampPeer& a, const SampPeer& b) {
        return a.name.compare(b.name, Qt::CaseInsensitive) < 0 || (a.name.compare(b.name, Qt::CaseInsensitive) == 0 && a.id < b.id);
    });
    return peers;
}

QString SampClient::tableMtype(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == u"fits" || suffix == u"fit" || suffix == u"fts") return QStringLiteral("table.load.fits");
    if (suffix == u"xml" || suffix == u"vot" || suffix == u"votable") return QStringLiteral("table.load.votable");
    return {};
}

bool SampClient::looksLikeFits(const QString& path) {
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly)) return false;
    return file.read(9) == QByteArrayLiteral("SIMPLE  =");
}

SampSent SampClient::sendTable(const QString& path, const QString& name, const QString& recipientId) {
    const QString mtype = tableMtype(path);
    if (mtype.isEmpty())
        fail(QStringLiteral("cannot send %1 as a table: SAMP tables are FITS (.fits, .fit, .fts) or VOTable (.xml, .vot, .votable)")
                 .arg(path));
    return send(mtype, path, QStringLiteral("table-id"), name, recipientId);
}

SampSent SampClient::sendImage(const QString& path, const QString& name, const QString& recipientId) {
    if (QFileInfo(path).isFile() && !looksLikeFits(path))
        fail(QStringLiteral("cannot send %1 as an image: SAMP's image.load.fits takes FITS files only").arg(path));
    return send(QStringLiteral("image.load.fits"), path, QStringLiteral("image-id"), name, recipientId);
}

SampSent SampClient::send(const QString& mtype, const QString& path, const QString& idKey, const QString& name,
                          const QString& recipientId) {
    const QFileInfo info(path);
    if (!info.isFile()) fail(QStringLiteral("cannot send %1: no such file").arg(path));
    const QString absolute = info.absoluteFilePath();
    SampSent sent;
    sent.mtype = mtype;
    sent.url = QUrl::fromLocalFile(absolute).toString(QUrl::FullyEncoded);
    const QVariantMap params{{QStringLiteral("url"), sent.url},
                             {idKey, datasetId(idKey.left(idKey.indexOf(QLatin1Char('-'))), absolute)},
                             {QStringLiteral("name"), name.isEmpty() ? info.fileName() : name}};
    const QVariantMap message{{QStringLiteral("samp.mtype"), mtype}, {QStringLiteral("samp.params"), params}};
    if (recipientId.isEmpty()) {
        for (const QVariant& id : hubCall(QStringLiteral("samp.hub.notifyAll"), {message}).toList())
            sent.recipients.append(id.toString());
    } else {
        hubCall(QStringLiteral("samp.hub.notify"), {recipientId, message});
        sent.recipients.append(recipientId);
    }
    return sent;
}

} // namespace glint::samp
