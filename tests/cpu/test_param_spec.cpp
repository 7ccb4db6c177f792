// The parameter specs (core/params/ParamSpec.h) and what the command line makes of them (issue 29): every spec
// reads its own JSON back to the same parameters (defaults, presets and random valid values); a request with an
// unknown key, a wrong type or a value out of range is refused naming the key; --params replays an output's
// "parameters" to the same answer (automatic values resolved, nothing "auto" left), on real and bundled files of
// each kind; --preset auto picks the kind's values; --help lists every option with its default; batch records the
// parameters asked for and each file's resolved values.
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/BrightestSpec.h"
#include "core/algo/commoncomponent/CommonSpec.h"
#include "core/algo/kmax/KMax1dSpec.h"
#include "core/algo/trace/TraceSpec.h"
#include "core/params/ImageKind.h"
#include "core/util/Errors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <random>

using namespace glint;

namespace {

// Every spec as its base and its JSON round trip (write(read(j)) == j for j holding every key).
struct SpecUnderTest {
    const ParamSpecBase* spec;
    std::function<Json(const Json&)> roundTrip;
};

std::vector<SpecUnderTest> specs() {
    return {{&brightestSpec(), [](const Json& j) { return brightestSpec().write(brightestSpec().read(j), j.value("preset", "none")); }},
            {&traceSpec(), [](const Json& j) { return traceSpec().write(traceSpec().read(j), j.value("preset", "none")); }},
            {&commonSpec(), [](const Json& j) { return commonSpec().write(commonSpec().read(j), j.value("preset", "none")); }},
            {&kmax1dSpec(), [](const Json& j) { return kmax1dSpec().write(kmax1dSpec().read(j), j.value("preset", "none")); }}};
}

// Whether no value of a resolved document is automatic (no "auto" left; "adaptive" and "quarter" are modes).
bool nothingAuto(const QJsonObject& parameters) {
    for (auto it = parameters.begin(); it != parameters.end(); ++it)
        if (it.value().toString() == QLatin1String("auto")) return false;
    return true;
}


} // namespace

class TestParamSpec : public QObject {
    Q_OBJECT

private slots:
    // Defaults and every kind's preset read back to themselves; the default of each field is what a
    // default-constructed parameter struct holds.
    void defaultsAndPresetsRoundTrip() {
        for (const SpecUnderTest& s : specs()) {
            const Json defaults = s.spec->defaults();
            QCOMPARE(s.roundTrip(defaults).dump(), defaults.dump());
            for (ImageKind kind : {ImageKind::Sky, ImageKind::Mammogram, ImageKind::Aerial, ImageKind::Other}) {
                const Json preset = s.spec->applyPreset({{"preset", imageKindName(kind)}}, nullptr);
                QCOMPARE(QString::fromStdString(preset["preset"].get<std::string>()), QString::fromLatin1(imageKindName(kind)));
                QCOMPARE(s.roundTrip(preset).dump(), preset.dump());
            }
        }
        // The sky preset is the source finder (the window's FITS defaults).
        const BrightestParams sky = brightestSpec().read(brightestSpec().applyPreset({{"preset", "sky"}}, nullptr));
        QCOMPARE(sky.pivot.kind, PivotSpec::Kind::Local);
        QCOMPARE(sky.threshold, 3.0);
        QCOMPARE(sky.minSnr, 5.0);
        QVERIFY(sky.maxBox.isAuto());
        QCOMPARE(sky.k, 10);
        // A field that does not apply takes no preset value: Distinct (0.2 in the presets) only in overlap mode.
        QVERIFY(!sky.distinct);
        const BrightestParams overlap =
            brightestSpec().read(brightestSpec().applyPreset({{"preset", "sky"}, {"mode", "overlap"}}, nullptr));
        QVERIFY(overlap.distinct && *overlap.distinct == 0.2);
        QCOMPARE(overlap.minSnr, 0.0); // the disjoint search's filters stay out of overlap mode
    }

    // Random valid values of every field come back the same through JSON (doubles to the bit).
    void randomValuesRoundTrip() {
        std::mt19937 rng(29);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        for (int trial = 0; trial < 300; ++trial) {
            Json b = brightestSpec().defaults();
            b["k"] = 1 + static_cast<int>(unit(rng) * 1000);
            b["threshold"] = unit(rng) * 10;
            b["min_snr"] = unit(rng) * 50;
            b["max_box"] = trial % 3 == 0 ? Json("auto") : trial % 3 == 1 ? Json("none") : Json(1 + static_cast<int>(unit(rng) * 99));
            std::string percentile(1, 'p'); // not "p" + ...: GCC 12 warns falsely (-Wrestrict) on that form
            percentile += std::to_string(unit(rng) * 100);
            b["pivot"] = trial % 4 == 0 ? Json(unit(rng) * 1e4 - 5e3) : trial % 4 == 1 ? Json(percentile)
                                                                     : Json(trial % 4 == 2 ? "median" : "local");
            b["roi"] = trial % 2 ? Json(nullptr) : Json::array({1, 2, 30, 40});
            b["exclude_polygon"] = Json::array({Json::array({Json::array({0.5, 1.25}), Json::array({9.0, 2.0}), Json::array({4.0, 8.5})})});
            const Json back = brightestSpec().write(brightestSpec().read(b));
            for (const auto& [key, value] : b.items())
                if (key != "pivot" || !value.is_string() || value.get<std::string>()[0] != 'p')
                    QVERIFY2(back[key] == value, qPrintable(QString::fromStdString(key + ": " + value.dump() + " -> " + back[key].dump())));
            Json t = traceSpec().defaults();
            t["from"] = Json::array({unit(rng) * 100, unit(rng) * 100});
            t["to"] = Json::array({100 + unit(rng) * 100, unit(rng) * 100});
            t["width"] = trial % 2 ? Json("auto") : Json(0.5 + unit(rng) * 20);
            t["half_width"] = trial % 3 ? Json("quarter") : Json(1 + unit(rng) * 50);
            t["guides"] = trial % 2 ? Json("adaptive") : Json(1 + static_cast<int>(unit(rng) * 20));
            t["snap"] = unit(rng) * 8;
            QCOMPARE(traceSpec().write(traceSpec().read(t)).dump(), t.dump());
        }
    }

    // A request the spec refuses: one UsageError naming the key (and what it takes).
    void badRequestsNameTheKey_data() {
        test::columns<QString, QString, QString>({"spec", "request", "named"});
        QTest::newRow("unknown key") << "brightest" << R"({"kk": 3})" << "'kk'";
        QTest::newRow("k text") << "brightest" << R"({"k": "ten"})" << "'k'";
        QTest::newRow("k zero") << "brightest" << R"({"k": 0})" << "'k'";
        QTest::newRow("k fraction") << "brightest" << R"({"k": 2.5})" << "'k'";
        QTest::newRow("threshold negative") << "brightest" << R"({"threshold": -1})" << "'threshold'";
        QTest::newRow("threshold bool") << "brightest" << R"({"threshold": true})" << "'threshold'";
        QTest::newRow("max box word") << "brightest" << R"({"max_box": "automatic"})" << "'max_box'";
        QTest::newRow("max box zero") << "brightest" << R"({"max_box": 0})" << "'max_box'";
        QTest::newRow("pivot") << "brightest" << R"({"pivot": "p101"})" << "'pivot'";
        QTest::newRow("roi") << "brightest" << R"({"roi": [1, 2, 0, 4]})" << "'roi'";
        QTest::newRow("polygon") << "brightest" << R"({"exclude_polygon": [[[0, 0], [1, 1]]]})" << "'exclude_polygon'";
        QTest::newRow("mode") << "brightest" << R"({"mode": "both"})" << "'mode'";
        QTest::newRow("preset") << "brightest" << R"({"preset": "xray"})" << "'preset'";
        QTest::newRow("guides") << "trace" << R"({"guides": "auto-ish"})" << "'guides'";
        QTest::newRow("angle") << "trace" << R"({"max_angle": 0})" << "'max_angle'";
        QTest::newRow("point") << "trace" << R"({"from": [1]})" << "'from'";
        QTest::newRow("tolerance") << "common" << R"({"tolerance": -0.5})" << "'tolerance'";
        QTest::newRow("normalize") << "common" << R"({"normalize": 3})" << "'normalize'";
        QTest::newRow("not an object") << "common" << R"([1, 2])" << "JSON object";
    }
    void badRequestsNameTheKey() {
        QFETCH(QString, spec);
        QFETCH(QString, request);
        QFETCH(QString, named);
        const ParamSpecBase& s = spec == "brightest" ? static_cast<const ParamSpecBase&>(brightestSpec())
                                 : spec == "trace"   ? static_cast<const ParamSpecBase&>(traceSpec())
                                                     : static_cast<const ParamSpecBase&>(commonSpec());
        try {
            s.checkRequest(Json::parse(request.toStdString()), "--params f.json");
            QFAIL("accepted");
        } catch (const UsageError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(named), e.what());
            QVERIFY2(QString::fromStdString(e.what()).startsWith("--params f.json"), e.what());
        }
    }

    // --params on the command line: the same refusals, exit 2 with one line; a document of another algorithm
    // and a file that is no JSON are refused too, before any image is read.
    void badParamsFiles_data() {
        test::columns<QByteArray, QString>({"content", "named"});
        QTest::newRow("unknown key") << QByteArray(R"({"k": 3, "treshold": 2})") << "'treshold'";
        QTest::newRow("wrong type") << QByteArray(R"({"parameters": {"k": "3"}})") << "'k'";
        QTest::newRow("out of range") << QByteArray(R"({"max_box": -4})") << "'max_box'";
        QTest::newRow("other algorithm") << QByteArray(R"({"algorithm": "trace", "parameters": {}})") << "not of brightest";
        QTest::newRow("not json") << QByteArray("k = 3") << "not JSON";
        QTest::newRow("rules") << QByteArray(R"({"distinct": 0.3})") << "--mode overlap";
    }
    void badParamsFiles() {
        QFETCH(QByteArray, content);
        QFETCH(QString, named);
        const QString file = test::writeTempFile(QStringLiteral("bad-params.json"), content);
        const test::CliResult r = test::runCli({"brightest", "/nonexistent/image.fits", "--params", file});
        QCOMPARE(r.exitCode, 2); // before the (missing) image is read
        QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(named), r.err.constData());
        const test::CliResult missing = test::runCli({"brightest", test::samplePath("ngc1316o.fit"), "--params", "/nonexistent/p.json"});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(test::oneErrorLine(missing.err));
    }

    // An output's "parameters" replay it: the same answer, the same parameters, nothing automatic left; options
    // given beside --params override the file's.
    void paramsReplay_data() {
        // answer: the JSON key that holds the answer
        test::columns<QStringList, QString>({"args", "answer"});
        const QString sky = test::samplePath("ngc1316o.fit");
        QTest::newRow("sky preset") << QStringList{"brightest", sky, "--preset", "auto"} << "regions";
        QTest::newRow("sky overlap, auto bound") << QStringList{"brightest", sky, "--pivot", "local", "--threshold", "3",
                                                                "--mode", "overlap", "--distinct", "0.1", "--max-box", "auto", "--k", "8"}
                                                 << "regions";
        QTest::newRow("percentile") << QStringList{"brightest", sky, "--pivot", "p99.5", "--k", "4", "--roi", "10,10,300,200"} << "regions";
        if (GLINT_WITH_IMGCODECS) {
            const QString mammogram = test::samplePath("synthetic-mammogram.png"), aero = test::samplePath("aero.png");
            QTest::newRow("mammogram preset") << QStringList{"brightest", mammogram, "--preset", "auto"} << "regions";
            QTest::newRow("trace, ridge, width auto")
                << QStringList{"trace", aero, "--preset", "auto", "--score", "ridge", "--from", "4,431", "--via", "150,453", "--to", "300,506"}
                << "points";
            // The road-east case of the real trace set, whose path depends on the field's saturation at the clicked
            // road's strength (a brighter road crosses it): the replay must saturate the same.
            QTest::newRow("trace, preset auto, saturated field")
                << QStringList{"trace", aero, "--preset", "auto", "--from", "340.1,449.1", "--to", "408.9,449.3"} << "points";
            QTest::newRow("common") << QStringList{"common", aero, aero, "--preset", "auto", "--max-shift", "3"} << "offset";
        }
        QTest::newRow("kmax1d") << QStringList{"kmax1d", "--random", "500", "--seed", "4", "--k", "7"} << "segments";
    }
    void paramsReplay() {
        QFETCH(QStringList, args);
        QFETCH(QString, answer);
        const QJsonObject first = test::runCliJson(args + QStringList{"--json", "-"});
        const QJsonObject parameters = first["parameters"].toObject();
        QVERIFY(!parameters.isEmpty());
        QVERIFY2(nothingAuto(parameters), QJsonDocument(parameters).toJson().constData());
        const QString file = test::writeTempFile(QStringLiteral("replay.json"), QJsonDocument(first).toJson());
        QStringList replay{args[0]};
        if (args[0] != "kmax1d") replay << args[1];
        if (args[0] == "common") replay << args[2];
        const QJsonObject second = test::runCliJson(replay + QStringList{"--params", file, "--json", "-"});
        QCOMPARE(second[answer], first[answer]);
        QCOMPARE(second["parameters"].toObject(), parameters);
        // An option beside --params wins over the file's value.
        if (args[0] == "brightest") {
            const QJsonObject k2 = test::runCliJson(replay + QStringList{"--params", file, "--k", "2", "--json", "-"});
            QCOMPARE(k2["parameters"].toObject()["k"].toInt(), 2);
            QVERIFY(k2["regions"].toArray().size() <= 2);
        }
    }

    // --preset auto is the kind's preset: on a FITS frame the source finder with the bound measured on its stars.
    void presetAuto() {
        const QJsonObject doc = test::runCliJson({"brightest", test::samplePath("ngc1316o.fit"), "--preset", "auto", "--json", "-"});
        QCOMPARE(doc["image"].toObject()["kind"].toObject()["kind"].toString(), QStringLiteral("sky"));
        const QJsonObject p = doc["parameters"].toObject();
        QCOMPARE(p["preset"].toString(), QStringLiteral("sky"));
        QCOMPARE(p["pivot"].toString(), QStringLiteral("local"));
        QCOMPARE(p["max_box"].toInt(), doc["max_box"].toInt());
        QVERIFY(p["max_box"].toInt() >= 3);
        QCOMPARE(p["slope_rule"].toBool(), true);
        // A named kind: its preset whatever the image is; an option given overrides it.
        const QJsonObject named = test::runCliJson({"brightest", test::samplePath("ngc1316o.fit"), "--preset", "other",
                                                    "--threshold", "1", "--json", "-"});
        QCOMPARE(named["parameters"].toObject()["pivot"].toString(), QStringLiteral("mean"));
        QCOMPARE(named["parameters"].toObject()["threshold"].toDouble(), 1.0);
        QCOMPARE(named["parameters"].toObject()["k"].toInt(), 10);
        const test::CliResult bad = test::runCli({"brightest", test::samplePath("ngc1316o.fit"), "--preset", "xray"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(QString::fromUtf8(bad.err).contains("--preset"));
    }

    // --help: one line per option of the spec, with its default, for every algorithm command.
    void helpListsEveryOption() {
        for (const auto& [command, spec] : {std::pair<QString, const ParamSpecBase*>{"brightest", &brightestSpec()},
                                            {"trace", &traceSpec()}, {"common", &commonSpec()}, {"kmax1d", &kmax1dSpec()}}) {
            const test::CliResult r = test::runCli({command, "--help"});
            QCOMPARE(r.exitCode, 0);
            const QString help = QString::fromUtf8(r.out);
            for (const auto& f : spec->fields()) {
                const FieldInfo& i = f->info();
                if (i.option.empty()) continue;
                QVERIFY2(help.contains(QString::fromStdString("  " + i.option + " ")), qPrintable(command + ": " + QString::fromStdString(i.option)));
                if (!i.repeatable)
                    QVERIFY2(help.contains(QString::fromStdString("(default " + f->defaultText() + ")")),
                             qPrintable(command + ": " + QString::fromStdString(i.option)));
            }
            QVERIFY(help.contains("--params FILE.json"));
        }
    }

    // Batch: the first line records the parameters asked for; each row what its file resolved otherwise.
    void batchRecordsParameters() {
        const QString dir = QDir(test::tempDir()).filePath(QStringLiteral("batch-params"));
        QDir().mkpath(dir);
        QFile::copy(test::samplePath("ngc1316o.fit"), dir + "/a.fit");
        const QString out = QDir(test::tempDir()).filePath(QStringLiteral("batch-params.csv"));
        const test::CliResult r = test::runCli({"batch", "--algo", "brightest", "--preset", "auto", "--k", "3", "--out", out, dir});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const std::string text = test::readFileString(out);
        QVERIFY(text.rfind("# glint-cli batch --algo brightest; parameters: ", 0) == 0);
        const Json asked = Json::parse(text.substr(text.find('{'), text.find('\n') - text.find('{')));
        QCOMPARE(QString::fromStdString(asked["preset"].get<std::string>()), QStringLiteral("auto"));
        QCOMPARE(asked["k"].get<int>(), 3);
        const QStringList lines = QString::fromStdString(text).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines[1].startsWith("# batch: {")); // the run: shard, file list, load options
        QVERIFY(lines[2].startsWith("path,") && lines[2].endsWith(",parameters,content_hash"));
        QCOMPARE(lines.size(), 6); // two comments, header, three regions
        // Each row: the kind's preset and the measured bound.
        const QString row = lines[3].left(lines[3].lastIndexOf(','));
        const QString cell = row.mid(row.indexOf(",\"{") + 2).chopped(1).replace("\"\"", "\"");
        const Json resolved = Json::parse(cell.toStdString());
        QCOMPARE(QString::fromStdString(resolved["preset"].get<std::string>()), QStringLiteral("sky"));
        QVERIFY(resolved["max_box"].is_number_integer());
        QVERIFY(!resolved.contains("k")); // as asked
    }
};

QTEST_GUILESS_MAIN(TestParamSpec)
#include "test_param_spec.moc"
