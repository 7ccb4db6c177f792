// XML-RPC documents (https://xmlrpc.com/spec.md), the wire format of SAMP's Standard Profile: a call is
// encoded from QVariant values and a response decoded back, a <fault> becoming an XmlRpcFault. No network.
#pragma once

#include "samp/SampError.h"

#include <QByteArray>
#include <QString>
#include <QVariant>
#include <QVariantList>

namespace glint::samp {

// A <fault> answer: the server's code and message.
class XmlRpcFault : public SampError {
public:
    XmlRpcFault(int code, const QString& faultString);
    int code() const { return code_; }
    QString faultString() const { return faultString_; }

private:
    int code_;
    QString faultString_;
};

// Values: QString (<string>), bool (<boolean>), int or a qlonglong that fits 32 bits (<int>), double
// (<double>), QVariantMap (<struct>), QVariantList or QStringList (<array>). Anything else, a 64-bit integer
// out of range, a non-finite double or a string with a character XML 1.0 cannot carry throws SampError.
QByteArray encodeXmlRpcCall(const QString& method, const QVariantList& params);

// The single value of a <methodResponse>: <string> (or an untyped value) → QString, <int>/<i4>/<i8> →
// qlonglong, <boolean> → bool, <double> → double, <struct> → QVariantMap, <array> → QVariantList,
// <nil/> → an invalid QVariant. A <fault> throws XmlRpcFault; a malformed document throws SampError.
QVariant decodeXmlRpcResponse(const QByteArray& document);

} // namespace glint::samp
