// One XML-RPC endpoint over HTTP (QNetworkAccessManager), called synchronously: each call runs a local
// event loop until the answer comes or the timeout passes, so a hub that is gone or stuck costs at most the
// timeout, never a hang. Lives on the thread that made it (QNetworkAccessManager's rule).
#pragma once

#include <QUrl>
#include <QVariant>
#include <QVariantList>

#include <memory>

class QNetworkAccessManager;

namespace glint::samp {

class XmlRpcClient {
public:
    static constexpr int kDefaultTimeoutMs = 5000;

    explicit XmlRpcClient(QUrl endpoint, int timeoutMs = kDefaultTimeoutMs);
    ~XmlRpcClient();
    XmlRpcClient(const XmlRpcClient&) = delete;
    XmlRpcClient& operator=(const XmlRpcClient&) = delete;

    // The call's result (decodeXmlRpcResponse()). Throws SampError: no answer within the timeout, the
    // connection refused or lost, an HTTP error, a malformed answer; XmlRpcFault for a <fault>.
    // `timeoutMs` < 0: the client's own.
    QVariant call(const QString& method, const QVariantList& params, int timeoutMs = -1);

    QUrl endpoint() const { return endpoint_; }
    int timeoutMs() const { return timeoutMs_; }
    void setTimeoutMs(int ms) { timeoutMs_ = ms; }

private:
    QUrl endpoint_;
    int timeoutMs_;
    std::unique_ptr<QNetworkAccessManager> network_;
};

} // namespace glint::samp
