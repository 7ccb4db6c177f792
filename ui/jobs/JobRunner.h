// Runs one algorithm job at a time on a worker thread for the window: progress polled every 50 ms,
// Cancel through the job's JobControl, and one signal for each way a job can end.
#pragma once

#include "core/jobs/JobControl.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace glint::ui {

struct JobRequest {
    QString name;                                       // shown in the status bar: "Brightest region"
    std::function<void(glint::JobControl&)> work;       // runs on a worker thread; throws to fail
    std::function<void(glint::JobControl&)> done;       // runs on the UI thread after work succeeded
    // This request's own outcome, on the UI thread, after the runner's signals (so a handler may start the
    // next job): exactly one of them runs for every request that started.
    std::function<void()> finished;                     // done ran without throwing
    std::function<void(const QString& message)> failed; // work or done threw
    std::function<void()> cancelled;
};

// One job at a time: start() while a job runs is refused (returns false, emits refused) rather than
// queued, because a queued analysis would run on whatever image and parameters are current by then.
class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override; // cancels a running job and waits for it

    bool start(JobRequest request);
    bool isBusy() const { return control_ != nullptr; }
    QString currentName() const { return name_; }
    // The step the running job is in (core's timing steps: "measure", "background model"), empty before its
    // first step and when idle.
    QString currentStep() const { return step_; }
    double progress() const;

public slots:
    // Asks the running job to stop; it ends with cancelled() as soon as its work function returns.
    void cancel();

signals:
    void started(const QString& name);
    void progressChanged(double fraction);
    void stepChanged(const QString& step);
    void finished(const QString& name, double elapsedMs);
    void failed(const QString& name, const QString& message);
    void cancelled(const QString& name);
    void refused(const QString& name, const QString& runningName);
    void busyChanged(bool busy);

private:
    void onWorkerFinished();

    struct Outcome {
        std::exception_ptr error;
        std::mutex stepMutex; // the worker's latest step, read by the poll
        std::string step;
    };
    QFutureWatcher<void> watcher_;
    QTimer poll_;
    QElapsedTimer clock_;
    std::shared_ptr<glint::JobControl> control_;
    std::shared_ptr<Outcome> outcome_;
    std::function<void(glint::JobControl&)> done_;
    std::function<void()> onFinished_;
    std::function<void(const QString&)> onFailed_;
    std::function<void()> onCancelled_;
    QString name_;
    QString step_;
    double lastProgress_ = -1.0;
};

// The one-line message of an exception thrown by a job (what() for std::exception).
QString describeException(const std::exception_ptr& error);

} // namespace glint::ui
