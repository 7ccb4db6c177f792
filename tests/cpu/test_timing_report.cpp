// Timing reports: the HTML names every step and its numbers are the JSON's, the CSV agrees, speed-ups
// are taken against the right runs, the page is self-contained, and glint-cli bench --report writes them.
#include "tests/support/TestSupport.h"

#include "core/export/CsvTable.h"
#include "core/export/JsonOutput.h"
#include "core/export/TimingReport.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

#include <map>

using namespace glint;

namespace {

std::vector<TimingRun> sampleRuns() {
    std::vector<TimingRun> runs;
    auto run = [&](const std::string& backend, std::vector<TimingStep> steps, double total) {
        TimingRun r;
        r.algorithm = "brightest";
        r.caseName = "u8 1024x1024";
        r.backend = backend;
        r.device = backend == "cuda" ? "NVIDIA H100 80GB HBM3" : "CPU, 16 threads";
        r.steps = std::move(steps);
        r.totalMs = total;
        r.parameters = "k=1 pivot=mean";
        runs.push_back(r);
    };
    run("reference", {{"prefix sums", 120.125}, {"kadane", 2300.0625}}, 2420.1875);
    run("cpu", {{"prefix sums", 11.5}, {"kadane", 140.25}}, 151.75);
    run("cuda", {{"upload", 0.731}, {"kernel", 1.0 / 3.0}, {"download", 0.012}}, 1.3000000000000003);
    runs.back().kernelMs = 1.0 / 3.0;
    runs.back().floorMs = 0.21;
    // A window run on an image, with a step name that needs escaping and time outside its steps.
    TimingRun gui;
    gui.algorithm = "Common component";
    gui.backend = "cpu";
    gui.device = "CPU, 2 threads";
    gui.imagePath = "/images/a <b>.fits";
    gui.imageWidth = 300;
    gui.imageHeight = 200;
    gui.parameters = "tolerance=0";
    gui.steps = {{"label <strips>", 10.0}, {"merge & size", 5.5}};
    gui.totalMs = 20.0;
    gui.when = "2024-05-01T10:00:00";
    runs.push_back(gui);
    return runs;
}

} // namespace

class TestTimingReport : public QObject {
    Q_OBJECT

private slots:
    void speedups() {
        const auto runs = sampleRuns();
        QCOMPARE(*timingSpeedup(runs, 0, "reference"), 1.0);
        QCOMPARE(*timingSpeedup(runs, 1, "reference"), 2420.1875 / 151.75);
        QCOMPARE(*timingSpeedup(runs, 2, "cpu"), 151.75 / 1.3000000000000003);
        QVERIFY(!timingSpeedup(runs, 3, "reference")); // no reference run of that case
        QVERIFY(!timingSpeedup(runs, 0, "cpu") || *timingSpeedup(runs, 0, "cpu") < 1.0);
        // The most recent baseline of the same case counts; other parameters are another case.
        auto more = runs;
        more.push_back(runs[0]);
        more.back().totalMs = 1300.0;
        QCOMPARE(*timingSpeedup(more, 2, "reference"), 1300.0 / 1.3000000000000003);
        more.back().parameters = "k=2";
        QCOMPARE(*timingSpeedup(more, 2, "reference"), 2420.1875 / 1.3000000000000003);
        QVERIFY(timingStepNames(runs) ==
                (std::vector<std::string>{"prefix sums", "kadane", "upload", "kernel", "download", "label <strips>",
                                          "merge & size"}));
    }

    void htmlNumbersAreTheJsons() {
        const auto runs = sampleRuns();
        TimingReportInfo info;
        info.title = "Test report";
        info.environment = "test machine";
        const QString dir = test::tempDir();
        writeTimingReport((dir + "/t.html").toStdString(), runs, info);
        writeTimingReport((dir + "/t.json").toStdString(), runs, info);
        QVERIFY(QFile::exists(dir + "/t.html"));
        const QString html = QString::fromStdString(test::readFileString(dir + "/t.html"));
        const Json json = Json::parse(test::readFileString(dir + "/t.json"));
        QCOMPARE(json["rows"].size(), runs.size());

        // Every step is named (escaped) in the table header.
        for (const auto& name : timingStepNames(runs)) {
            QString escaped = QString::fromStdString(name).toHtmlEscaped();
            QVERIFY2(html.contains("<th class=\"step\">" + escaped + " ms</th>"), qPrintable(escaped));
        }
        QVERIFY(!html.contains("<strips>"));

        // Each row's cells against the JSON: steps, total, speed-ups, at full precision and as shown.
        const QRegularExpression rowRe("<tr id=\"run-(\\d+)\">(.*?)</tr>");
        const QRegularExpression stepRe("<td class=\"num\" data-step=\"([^\"]*)\" data-ms=\"([^\"]*)\">([^<]*)</td>");
        const QRegularExpression totalRe("data-total=\"1\" data-ms=\"([^\"]*)\">([^<]*)</td>");
        const QRegularExpression speedRe("data-speedup=\"(\\w+)\" data-value=\"([^\"]*)\">");
        int rowsSeen = 0, stepsSeen = 0, speedupsSeen = 0;
        for (auto rows = rowRe.globalMatch(html); rows.hasNext();) {
            const auto row = rows.next();
            const Json& j = json["rows"][row.captured(1).toInt() - 1];
            ++rowsSeen;
            std::map<std::string, double> steps;
            for (auto s = stepRe.globalMatch(row.captured(2)); s.hasNext();) {
                const auto m = s.next();
                std::string name = m.captured(1).toStdString();
                for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
                    for (std::size_t p; (p = name.find(from)) != std::string::npos;) name.replace(p, from.size(), to);
                QVERIFY2(j["timing_ms"]["steps"].contains(name), name.c_str());
                const double v = j["timing_ms"]["steps"][name].get<double>();
                QCOMPARE(m.captured(2).toDouble(), v);
                QCOMPARE(m.captured(3).toStdString(), formatDecimals(v, 3));
                steps[name] = v;
                ++stepsSeen;
            }
            QCOMPARE(steps.size(), j["timing_ms"]["steps"].size());
            const auto total = totalRe.match(row.captured(2));
            QVERIFY(total.hasMatch());
            QCOMPARE(total.captured(1).toDouble(), j["timing_ms"]["total"].get<double>());
            QCOMPARE(total.captured(2).toStdString(), formatDecimals(j["timing_ms"]["total"].get<double>(), 3));
            for (auto s = speedRe.globalMatch(row.captured(2)); s.hasNext();) {
                const auto m = s.next();
                const std::string key = "speedup_vs_" + m.captured(1).toStdString();
                QVERIFY(j[key].is_number());
                QCOMPARE(m.captured(2).toDouble(), j[key].get<double>());
                ++speedupsSeen;
            }
        }
        QCOMPARE(rowsSeen, static_cast<int>(runs.size()));
        QCOMPARE(stepsSeen, 9);
        // Each brightest run against both baselines (a baseline against itself is 1); the window run on cpu
        // only against itself: it has no reference run.
        QCOMPARE(speedupsSeen, 7);

        // Charts: one bar per run, a segment per step, the time outside the named steps, the speed-ups.
        QCOMPARE(html.count("<svg "), 2);
        QVERIFY(html.contains("other (outside named steps)"));
        QVERIFY(html.contains("vs reference</text>"));
        // Self-contained: no scripts, nothing fetched (the SVG namespace is a name, not a download).
        QVERIFY(!html.contains("<script", Qt::CaseInsensitive));
        QVERIFY(!html.contains("src=", Qt::CaseInsensitive));
        QVERIFY(!html.contains("href=", Qt::CaseInsensitive));
        QVERIFY(!html.contains("<link", Qt::CaseInsensitive));
    }

    void csvAgreesWithJson() {
        const auto runs = sampleRuns();
        const Json json = timingReportJson(runs, {});
        const auto rows = parseCsv(timingReportCsv(runs));
        QCOMPARE(rows.size(), runs.size() + 1);
        const auto& header = rows[0];
        auto column = [&](const std::string& name) {
            return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
        };
        QCOMPARE(column("run"), std::size_t(0));
        QVERIFY(column("step:kernel") < header.size());
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto& row = rows[i + 1];
            const Json& j = json["rows"][i];
            QCOMPARE(std::stod(row[column("total_ms")]), j["timing_ms"]["total"].get<double>());
            for (const auto& [name, ms] : j["timing_ms"]["steps"].items())
                QCOMPARE(std::stod(row[column("step:" + name)]), ms.get<double>());
            if (j["speedup_vs_reference"].is_number())
                QCOMPARE(std::stod(row[column("speedup_vs_reference")]), j["speedup_vs_reference"].get<double>());
            else
                QVERIFY(row[column("speedup_vs_reference")].empty());
        }
        QCOMPARE(rows[4][column("image")], std::string("/images/a <b>.fits"));
        QCOMPARE(rows[4][column("image_width")], std::string("300"));
    }

    void formats() {
        const auto runs = sampleRuns();
        QVERIFY(timingReportMarkdown(runs, {}).find("| 3 | brightest | u8 1024x1024 | cuda |") != std::string::npos);
        QVERIFY(timingReportText(runs).find("1861.7x") != std::string::npos); // reference / cpu = 15.9x, cuda 1861.7x
        QCOMPARE(static_cast<int>(timingReportFormatForPath("x/r.HTML")), static_cast<int>(TimingReportFormat::Html));
        QVERIFY_THROWS_EXCEPTION(UsageError, timingReportFormatForPath("r.txt"));
        QVERIFY_THROWS_EXCEPTION(UsageError, timingReportFormatForPath("r.d/html"));
        // No runs is still a report.
        QVERIFY(timingReportHtml({}, {}).find("No runs.") != std::string::npos);
        QCOMPARE(timingReportJson({}, {})["rows"].size(), std::size_t(0));
    }

    void benchReports() {
        const QString dir = test::tempDir();
        for (const char* ext : {"json", "csv", "html", "md"}) {
            const QString path = dir + "/bench." + ext;
            const auto r = test::runCli({"bench", "brightest", "--sizes", "48", "--backends", "reference,cpu",
                                         "--repeat", "1", "--report", path});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY(QFile::exists(path));
        }
        const Json json = Json::parse(test::readFileString(dir + "/bench.json"));
        QCOMPARE(json["algorithm"].get<std::string>(), std::string("bench"));
        QVERIFY(json["rows"].size() >= 2);
        const std::string html = test::readFileString(dir + "/bench.html");
        for (const Json& row : json["rows"]) {
            QVERIFY(row["verified"].get<bool>());
            for (const auto& [name, ms] : row["timing_ms"]["steps"].items())
                QVERIFY2(html.find("<th class=\"step\">" + name + " ms</th>") != std::string::npos, name.c_str());
            if (row["backend"] == "cpu") QVERIFY(row["speedup_vs_reference"].is_number());
        }
        const auto csv = parseCsv(test::readFileString(dir + "/bench.csv"));
        QCOMPARE(csv[0][0], std::string("run"));
        QVERIFY(test::readFileString(dir + "/bench.md").rfind("# Glint bench", 0) == 0);
        // A bad extension is refused before the bench runs.
        const auto bad = test::runCli({"bench", "brightest", "--sizes", "48", "--report", dir + "/bench.txt"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(!QFile::exists(dir + "/bench.txt"));
    }
};

QTEST_GUILESS_MAIN(TestTimingReport)
#include "test_timing_report.moc"
