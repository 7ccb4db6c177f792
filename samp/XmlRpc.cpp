#include "samp/XmlRpc.h"

#include <QXmlStreamReader>

#include <cmath>
#include <limits>

namespace glint::samp {

XmlRpcFault::XmlRpcFault(int code, const QString& faultString)
    : SampError(QStringLiteral("the SAMP hub refused the call: %1 (fault %2)").arg(faultString).arg(code).toStdString()),
      code_(code), faultString_(faultString) {}

namespace {

// XML 1.0's Char production: what a document can carry at all.
bool isXmlChar(char32_t c) {
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
}

void appendEscaped(QByteArray& out, const QString& text) {
    for (char32_t c : text.toUcs4()) {
        if (!isXmlChar(c))
            throw SampError(QStringLiteral("cannot send the character U+%1 through XML-RPC")
                                .arg(static_cast<uint>(c), 4, 16, QLatin1Char('0'))
                                .toStdString());
    }
    for (const char c : text.toUtf8()) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '\r': out += "&#13;"; break; // a parser would turn a raw CR into LF
        default: out += c;
        }
    }
}

void appendValue(QByteArray& out, const QVariant& value) {
    out += "<value>";
    switch (value.typeId()) {
    case QMetaType::QString:
        out += "<string>";
        appendEscaped(out, value.toString());
        out += "</string>";
        break;
    case QMetaType::Bool: out += value.toBool() ? "<boolean>1</boolean>" : "<boolean>0</boolean>"; break;
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong: {
        bool ok = false;
        const qlonglong v = value.toLongLong(&ok);
        if (!ok || v < std::numeric_limits<qint32>::min() || v > std::numeric_limits<qint32>::max() ||
            (value.typeId() == QMetaType::ULongLong && value.toULongLong() > 0x7fffffffULL))
            throw SampError("an XML-RPC <int> holds 32 bits: " + value.toString().toStdString() + " does not fit");
        out += "<int>" + QByteArray::number(v) + "</int>";
        break;
    }
    case QMetaType::Double: {
        const double v = value.toDouble();
        if (!std::isfinite(v)) throw SampError("XML-RPC cannot carry a non-finite double");
        out += "<double>" + QByteArray::number(v, 'g', 17) + "</double>";
        break;
    }
    case QMetaType::QVariantMap: {
        out += "<struct>";
        const QVariantMap map = value.toMap();
        for (auto it = map.cbegin(); it != map.cend(); ++it) {
            out += "<member><name>";
            appendEscaped(out, it.key());
            out += "</name>";
            appendValue(out, it.value());
            out += "</member>";
        }
        out += "</struct>";
        break;
    }
    case QMetaType::QVariantList:
    case QMetaType::QStringList: {
        out += "<array><data>";
        for (const QVariant& item : value.toList()) appendValue(out, item);
        out += "</data></array>";
        break;
    }
    default:
        throw SampError(std::string("XML-RPC cannot carry a value of type ") +
                        (value.isValid() ? value.typeName() : "(none)"));
    }
    out += "</value>";
}

// A recursive reader over the response; every error names what was expected.
class ResponseReader {
public:
    explicit ResponseReader(const QByteArray& document) : xml_(document) {}

    QVariant read() {
        expectStart(u"methodResponse");
        nextElement();
        QVariant result;
        if (xml_.name() == u"fault") {
            nextElement();
            const QVariantMap fault = readValue().toMap();
            if (!fault.contains(QStringLiteral("faultString")))
                fail(QStringLiteral("a <fault> without faultString"));
            throw XmlRpcFault(fault.value(QStringLiteral("faultCode")).toInt(),
                              fault.value(QStringLiteral("faultString")).toString());
        }
        if (xml_.name() != u"params") fail(QStringLiteral("<params> or <fault> expected"));
        nextElement();
        if (xml_.name() != u"param") fail(QStringLiteral("a <param> expected"));
        nextElement();
        result = readValue();
        return result;
    }

private:
    [[noreturn]] void fail(const QString& what) {
        QString where = xml_.hasError() ? xml_.errorString() : what;
        throw SampError(QStringLiteral("malformed XML-RPC response (line %1): %2")
                            .arg(xml_.lineNumber())
                            .arg(where)
                            .toStdString());
    }
    // The next start element; fails at an end of element or of document.
    void nextElement() {
        while (!xml_.atEnd()) {
            const auto token = xml_.readNext();
            if (token == QXmlStreamReader::StartElement) return;
            if (token == QXmlStreamReader::EndElement) fail(QStringLiteral("an element expected, </%1> found").arg(xml_.name()));
            if (token == QXmlStreamReader::Characters && !xml_.isWhitespace())
                fail(QStringLiteral("text where an element was expected"));
        }
        fail(QStringLiteral("the document ends early"));
    }
    void expectStart(QStringView name) {
        nextElement();
        if (xml_.name() != name) fail(QStringLiteral("<%1> expected, <%2> found").arg(name).arg(xml_.name()));
    }
    // Skips whitespace up to the end element that closes the current one.
    void expectEnd() {
        while (!xml_.atEnd()) {
            const auto token = xml_.readNext();
            if (token == QXmlStreamReader::EndElement) return;
            if (token == QXmlStreamReader::StartElement) fail(QStringLiteral("unexpected <%1>").arg(xml_.name()));
            if (token == QXmlStreamReader::Characters && !xml_.isWhitespace()) fail(QStringLiteral("unexpected text"));
        }
        fail(QStringLiteral("the document ends early"));
    }
    bool skippable(QXmlStreamReader::TokenType token) const {
        return (token == QXmlStreamReader::Characters && xml_.isWhitespace()) || token == QXmlStreamReader::Comment;
    }
    QString text() {
        const QString s = xml_.readElementText(QXmlStreamReader::ErrorOnUnexpectedElement);
        if (xml_.hasError()) fail(QString());
        return s;
    }

    // At <value>: reads through its </value>.
    QVariant readValue() {
        if (xml_.name() != u"value") fail(QStringLiteral("<value> expected, <%1> found").arg(xml_.name()));
        // An untyped value is a string: read the characters up to the first element or </value>.
        QString untyped;
        while (!xml_.atEnd()) {
            const auto token = xml_.readNext();
            if (token == QXmlStreamReader::Characters) untyped += xml_.text();
            else if (token == QXmlStreamReader::EndElement) return untyped;
            else if (token == QXmlStreamReader::StartElement) break;
        }
        if (xml_.hasError() || xml_.atEnd()) fail(QStringLiteral("the document ends inside a <value>"));
        const QString type = xml_.name().toString();
        QVariant result;
        if (type == u"string") {
            result = text();
        } else if (type == u"int" || type == u"i4" || type == u"i8") {
            bool ok = false;
            const qlonglong v = text().trimmed().toLongLong(&ok);
            if (!ok) fail(QStringLiteral("a bad <%1>").arg(type));
            result = v;
        } else if (type == u"boolean") {
            const QString t = text().trimmed();
            if (t != u"0" && t != u"1") fail(QStringLiteral("a <boolean> is 0 or 1"));
            result = t == u"1";
        } else if (type == u"double") {
            bool ok = false;
            const double v = text().trimmed().toDouble(&ok);
            if (!ok) fail(QStringLiteral("a bad <double>"));
            result = v;
        } else if (type == u"nil") {
            expectEnd();
        } else if (type == u"struct") {
            result = readStruct();
        } else if (type == u"array") {
            result = readArray();
        } else {
            fail(QStringLiteral("unsupported type <%1>").arg(type));
        }
        expectEnd(); // </value>
        return result;
    }
    QVariantMap readStruct() {
        QVariantMap map;
        for (;;) {
            const auto token = xml_.readNext();
            if (token == QXmlStreamReader::EndElement) return map; // </struct>
            if (skippable(token)) continue;
            if (token != QXmlStreamReader::StartElement || xml_.name() != u"member") fail(QStringLiteral("<member> expected"));
            expectStart(u"name");
            const QString name = text();
            expectStart(u"value");
            map.insert(name, readValue());
            expectEnd(); // </member>
        }
    }
    QVariantList readArray() {
        expectStart(u"data");
        QVariantList list;
        for (;;) {
            const auto token = xml_.readNext();
            if (token == QXmlStreamReader::EndElement) break; // </data>
            if (skippable(token)) continue;
            if (token != QXmlStreamReader::StartElement) fail(QStringLiteral("<value> expected in <data>"));
            list.append(readValue());
        }
        expectEnd(); // </array>
        return list;
    }

    QXmlStreamReader xml_;
};

} // namespace

QByteArray encodeXmlRpcCall(const QString& method, const QVariantList& params) {
    QByteArray out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<methodCall><methodName>";
    appendEscaped(out, method);
    out += "</methodName><params>";
    for (const QVariant& p : params) {
        out += "<param>";
        appendValue(out, p);
        out += "</param>";
    }
    out += "</params></methodCall>\n";
    return out;
}

QVariant decodeXmlRpcResponse(const QByteArray& document) {
    return ResponseReader(document).read();
}

} // namespace glint::samp
