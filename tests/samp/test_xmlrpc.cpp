// XML-RPC documents against hand-checked ones: a call's encoding (escaping of < & >, nested structs and
// arrays, every scalar type, values XML-RPC cannot carry) and the decoding of responses (values, nesting,
// untyped strings, <nil/>, a fault, malformed documents).
#include "samp/XmlRpc.h"

#include <QtTest>

#include <limits>

using namespace glint::samp;

class TestXmlRpc : public QObject {
    Q_OBJECT
private slots:
    void encodesScalarsAndEscapes() {
        const QByteArray got = encodeXmlRpcCall(QStringLiteral("samp.hub.register"),
                                                {QStringLiteral("a < b && c > d"), 42, true, 0.5});
        const QByteArray want =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<methodCall><methodName>samp.hub.register</methodName><params>"
            "<param><value><string>a &lt; b &amp;&amp; c &gt; d</string></value></param>"
            "<param><value><int>42</int></value></param>"
            "<param><value><boolean>1</boolean></value></param>"
            "<param><value><double>0.5</double></value></param>"
            "</params></methodCall>\n";
        QCOMPARE(got, want);
    }

    void encodesNestedStructsAndArrays() {
        const QVariantMap params{{QStringLiteral("url"), QStringLiteral("file:///tmp/a%20b.fits")},
                                 {QStringLiteral("ids"), QVariantList{QStringLiteral("x"), -7}}};
        const QVariantMap message{{QStringLiteral("samp.mtype"), QStringLiteral("table.load.fits")},
                                  {QStringLiteral("samp.params"), params}};
        const QByteArray got = encodeXmlRpcCall(QStringLiteral("samp.hub.notifyAll"), {QStringLiteral("key"), message});
        // QVariantMap orders its keys: samp.mtype before samp.params, ids before url.
        const QByteArray want =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<methodCall><methodName>samp.hub.notifyAll</methodName><params>"
            "<param><value><string>key</string></value></param>"
            "<param><value><struct>"
            "<member><name>samp.mtype</name><value><string>table.load.fits</string></value></member>"
            "<member><name>samp.params</name><value><struct>"
            "<member><name>ids</name><value><array><data>"
            "<value><string>x</string></value><value><int>-7</int></value>"
            "</data></array></value></member>"
            "<member><name>url</name><value><string>file:///tmp/a%20b.fits</string></value></member>"
            "</struct></value></member>"
            "</struct></value></param>"
            "</params></methodCall>\n";
        QCOMPARE(got, want);
    }

    void encodesUtf8AndCarriageReturn() {
        const QByteArray got = encodeXmlRpcCall(QStringLiteral("m"), {QString::fromUtf8("Ω\r\n")});
        QVERIFY(got.contains("<string>\xce\xa9&#13;\n</string>"));
        // What we write, our reader reads back (the CR survives as a character reference).
        const QByteArray response = "<methodResponse><params><param><value><string>\xce\xa9&#13;\n</string></value></param></params></methodResponse>";
        QCOMPARE(decodeXmlRpcResponse(response).toString(), QString::fromUtf8("Ω\r\n"));
    }

    void refusesWhatXmlRpcCannotCarry() {
        QVERIFY_THROWS_EXCEPTION(SampError, encodeXmlRpcCall(QStringLiteral("m"), {QString(QChar(0x1))}));
        QVERIFY_THROWS_EXCEPTION(SampError, encodeXmlRpcCall(QStringLiteral("m"), {qlonglong(1) << 40}));
        QVERIFY_THROWS_EXCEPTION(SampError, encodeXmlRpcCall(QStringLiteral("m"), {std::numeric_limits<double>::infinity()}));
        QVERIFY_THROWS_EXCEPTION(SampError, encodeXmlRpcCall(QStringLiteral("m"), {QVariant()}));
        QVERIFY_THROWS_EXCEPTION(SampError, encodeXmlRpcCall(QStringLiteral("m"), {QByteArray("raw")}));
    }

    void decodesNestedResponse() {
        // Python's xmlrpc.client writes this shape (indented, untyped strings in places).
        const QByteArray response =
            "<?xml version='1.0'?>\n<methodResponse>\n<params>\n<param>\n<value><struct>\n"
            "<member>\n<name>samp.private-key</name>\n<value><string>k&amp;1</string></value>\n</member>\n"
            "<member>\n<name>samp.self-id</name>\n<value>cli#3</value>\n</member>\n"
            "<member>\n<name>n</name>\n<value><i4>-12</i4></value>\n</member>\n"
            "<member>\n<name>flag</name>\n<value><boolean>0</boolean></value>\n</member>\n"
            "<member>\n<name>x</name>\n<value><double>2.5e3</double></value>\n</member>\n"
            "<member>\n<name>none</name>\n<value><nil/></value>\n</member>\n"
            "<member>\n<name>list</name>\n<value><array><data>\n<value><string>a</string></value>\n"
            "<value><array><data>\n<value><int>1</int></value>\n</data></array></value>\n"
            "<value><struct></struct></value>\n</data></array></value>\n</member>\n"
            "</struct></value>\n</param>\n</params>\n</methodResponse>\n";
        const QVariantMap map = decodeXmlRpcResponse(response).toMap();
        QCOMPARE(map.size(), 7);
        QCOMPARE(map.value("samp.private-key").toString(), QStringLiteral("k&1"));
        QCOMPARE(map.value("samp.self-id").toString(), QStringLiteral("cli#3"));
        QCOMPARE(map.value("n").toLongLong(), -12);
        QCOMPARE(map.value("flag").typeId(), QMetaType::Bool);
        QCOMPARE(map.value("flag").toBool(), false);
        QCOMPARE(map.value("x").toDouble(), 2500.0);
        QVERIFY(map.contains("none") && !map.value("none").isValid());
        const QVariantList list = map.value("list").toList();
        QCOMPARE(list.size(), 3);
        QCOMPARE(list.at(0).toString(), QStringLiteral("a"));
        QCOMPARE(list.at(1).toList().value(0).toLongLong(), 1);
        QCOMPARE(list.at(2).typeId(), QMetaType::QVariantMap);
        QVERIFY(list.at(2).toMap().isEmpty());
    }

    void decodesEmptyStringValue() {
        QCOMPARE(decodeXmlRpcResponse("<methodResponse><params><param><value></value></param></params></methodResponse>"),
                 QVariant(QString()));
        QCOMPARE(decodeXmlRpcResponse("<methodResponse><params><param><value><string/></value></param></params></methodResponse>")
                     .typeId(),
                 QMetaType::QString);
    }

    void faultBecomesAClearError() {
        const QByteArray response =
            "<?xml version='1.0'?>\n<methodResponse>\n<fault>\n<value><struct>\n"
            "<member>\n<name>faultCode</name>\n<value><int>7</int></value>\n</member>\n"
            "<member>\n<name>faultString</name>\n<value><string>&lt;class 'SAMPProxyError'&gt;:Bad secret code</string></value>\n</member>\n"
            "</struct></value>\n</fault>\n</methodResponse>\n";
        try {
            decodeXmlRpcResponse(response);
            QFAIL("a fault must throw");
        } catch (const XmlRpcFault& fault) {
            QCOMPARE(fault.code(), 7);
            QCOMPARE(fault.faultString(), QStringLiteral("<class 'SAMPProxyError'>:Bad secret code"));
            QCOMPARE(QString::fromStdString(fault.what()),
                     QStringLiteral("the SAMP hub refused the call: <class 'SAMPProxyError'>:Bad secret code (fault 7)"));
        }
    }

    void malformedResponses_data() {
        QTest::addColumn<QByteArray>("document");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("html") << QByteArray("<html><body>502 Bad Gateway</body></html>");
        QTest::newRow("truncated") << QByteArray("<methodResponse><params><param><value><string>abc");
        QTest::newRow("no param") << QByteArray("<methodResponse><params></params></methodResponse>");
        QTest::newRow("bad int") << QByteArray("<methodResponse><params><param><value><int>x1</int></value></param></params></methodResponse>");
        QTest::newRow("bad boolean") << QByteArray("<methodResponse><params><param><value><boolean>yes</boolean></value></param></params></methodResponse>");
        QTest::newRow("unknown type") << QByteArray("<methodResponse><params><param><value><base64>AA==</base64></value></param></params></methodResponse>");
        QTest::newRow("member without value") << QByteArray("<methodResponse><params><param><value><struct><member><name>a</name></member></struct></value></param></params></methodResponse>");
        QTest::newRow("fault without string") << QByteArray("<methodResponse><fault><value><struct></struct></value></fault></methodResponse>");
        QTest::newRow("bad xml") << QByteArray("<methodResponse><params><param><value><string>a & b</string></value></param></params></methodResponse>");
    }
    void malformedResponses() {
        QFETCH(QByteArray, document);
        try {
            decodeXmlRpcResponse(document);
            QFAIL("a malformed response must throw");
        } catch (const XmlRpcFault&) {
            QFAIL("a malformed response is no fault");
        } catch (const SampError& error) {
            QVERIFY2(QString::fromStdString(error.what()).startsWith(QStringLiteral("malformed XML-RPC response")), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestXmlRpc)
#include "test_xmlrpc.moc"
