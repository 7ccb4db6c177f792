#include "samp/XmlRpcClient.h"

#include "samp/XmlRpc.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace glint::samp {

XmlRpcClient::XmlRpcClient(QUrl endpoint, int timeoutMs)
    : endpoint_(std::move(endpoint)), timeoutMs_(timeoutMs), network_(std::make_unique<QNetworkAccessManager>()) {
    // The hub is on this machine (or named exactly by its lockfile): never through an http_proxy.
    network_->setProxy(QNetworkProxy::NoProxy);
}

XmlRpcClient::~XmlRpcClient() = default;

QVariant XmlRpcClient::call(const QString& method, const QVariantList& params, int timeoutMs) {
    const int timeout = timeoutMs < 0 ? timeoutMs_ : timeoutMs;
    const QByteArray body = encodeXmlRpcCall(method, params);
    QNetworkRequest request(endpoint_);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("text/xml"));
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);

    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    bool timedOut = false;
    QObject::connect(&timer, &QTimer::timeout, &loop, [&] {
        timedOut = true;
        loop.quit();
    });
    std::unique_ptr<QNetworkReply> reply(network_->post(request, body));
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    timer.start(timeout);
    if (!reply->isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);

    const QString where = endpoint_.toDisplayString();
    if (timedOut && !reply->isFinished()) {
        reply->abort();
        throw SampError(QStringLiteral("the SAMP hub at %1 did not answer %2 within %3 s")
                            .arg(where, method)
                            .arg(timeout / 1000.0)
                            .toStdString());
    }
    if (reply->error() == QNetworkReply::ConnectionRefusedError || reply->error() == QNetworkReply::HostNotFoundError)
        throw SampError(QStringLiteral("%1: the hub's address %2 refuses connections (a lockfile left by a hub "
                                       "that has stopped?)")
                            .arg(QString::fromLatin1(kNoHubMessage), where)
                            .toStdString());
    if (reply->error() != QNetworkReply::NoError)
        throw SampError(QStringLiteral("the SAMP hub at %1 failed on %2: %3").arg(where, method, reply->errorString()).toStdString());
    return decodeXmlRpcResponse(reply->readAll());
}

} // namespace glint::samp
