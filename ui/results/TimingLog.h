// Every analysis run of the session with its backend, device, image, parameters and named timing steps:
// what the timing dock lists and what a timing report exports. Speed-ups are against the most recent
// reference run of the same algorithm on the same image with the same parameters.
#pragma once

#include "core/jobs/Backend.h"
#include "core/jobs/Timing.h"

#include <QDateTime>
#include <QObject>
#include <QSize>
#include <QString>

#include <optional>
#include <vector>

namespace glint {
class JobControl;
class Image;
} // namespace glint

namespace glint::ui {

struct RunRecord {
    QString algorithm;   // "Brightest region"
    QString backend;     // the backend that ran: "cuda", "cpu", "reference"
    QString device;      // "NVIDIA H100 80GB HBM3", "CPU, 16 threads"
    QString imagePath;
    QSize imageSize;
    QString parameters;  // "k=5 mode=disjoint pivot=mean"
    std::vector<glint::TimingStep> steps;
    double totalMs = 0.0;
    QDateTime when;

    // Fills backend, device (the job's, else deviceNameFor(backend)), steps and total from a finished job.
    static RunRecord fromJob(const QString& algorithm, glint::Backend resolved, const glint::JobControl& job,
                             const glint::Image& image, const QString& parameters);
};

class TimingLog : public QObject {
    Q_OBJECT
public:
    explicit TimingLog(QObject* parent = nullptr);

    void add(RunRecord record);
    void clear();
    const std::vector<RunRecord>& records() const { return records_; }
    // reference total / this total, when a matching reference run exists (the run itself excluded).
    std::optional<double> speedupAgainstReference(std::size_t index) const;

signals:
    void recordAdded(int index);
    void cleared();

private:
    std::vector<RunRecord> records_;
};

} // namespace glint::ui
