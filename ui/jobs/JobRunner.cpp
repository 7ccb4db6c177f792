#include "ui/jobs/JobRunner.h"

#include "core/jobs/StepReport.h"
#include "core/util/Errors.h"

#include <QtConcurrent/QtConcurrentRun>

namespace glint::ui {

QString describeException(const std::exception_ptr& error) {
    try {
        if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    } catch (...) {
        return QStringLiteral("unknown error");
    }
    return {};
}

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    poll_.setInterval(50);
    connect(&poll_, &QTimer::timeout, this, [this] {
        const double p = progress();
        if (p != lastProgress_) {
            lastProgress_ = p;
            emit progressChanged(p);
        }
        if (!outcome_) return;
        QString step;
        {
            std::lock_guard lock(outcome_->stepMutex);
            step = QString::fromStdString(outcome_->step);
        }
        if (step != step_) {
            step_ = step;
            emit stepChanged(step_);
        }
    });
    connect(&watcher_, &QFutureWatcher<void>::finished, this, &JobRunner::onWorkerFinished);
}

JobRunner::~JobRunner() {
    if (control_) {
        control_->requestCancel();
        watcher_.waitForFinished();
    }
}

double JobRunner::progress() const { return control_ ? control_->progress() : 0.0; }

bool JobRunner::start(JobRequest request) {
    if (control_) {
        emit refused(request.name, name_);
        return false;
    }
    control_ = std::make_shared<glint::JobControl>();
    outcome_ = std::make_shared<Outcome>();
    done_ = std::move(request.done);
    onFinished_ = std::move(request.finished);
    onFailed_ = std::move(request.failed);
    onCancelled_ = std::move(request.cancelled);
    name_ = request.name;
    lastProgress_ = -1.0;
    clock_.start();
    // The worker holds its own references, so it never touches this object.
    step_.clear();
    watcher_.setFuture(QtConcurrent::run([control = control_, outcome = outcome_, work = std::move(request.work)] {
        // The steps the job times on this thread are its progress label's (a pool thread: the listener goes after).
        struct StepListening {
            glint::StepListener previous;
            ~StepListening() { glint::setThreadStepListener(std::move(previous)); }
        } listening{glint::setThreadStepListener([outcome = outcome.get()](const std::string& step) {
            std::lock_guard lock(outcome->stepMutex);
            outcome->step = step;
        })};
        try {
            if (work) work(*control);
        } catch (...) {
            outcome->error = std::current_exception();
        }
    }));
    poll_.start();
    emit busyChanged(true);
    emit started(name_);
    emit progressChanged(0.0);
    return true;
}

void JobRunner::cancel() {
    if (control_) control_->requestCancel();
}

void JobRunner::onWorkerFinished() {
    poll_.stop();
    const std::shared_ptr<glint::JobControl> control = std::move(control_);
    const std::shared_ptr<Outcome> outcome = std::move(outcome_);
    auto done = std::move(done_);
    auto onFinished = std::move(onFinished_);
    auto onFailed = std::move(onFailed_);
    auto onCancelled = std::move(onCancelled_);
    const QString name = name_;
    step_.clear();
    const double elapsed = static_cast<double>(clock_.nsecsElapsed()) / 1e6;
    name_.clear();
    done_ = nullptr;
    onFinished_ = nullptr;
    onFailed_ = nullptr;
    onCancelled_ = nullptr;
    auto fail = [&](const QString& message) {
        emit failed(name, message);
        if (onFailed) onFailed(message);
    };
    // Idle before anyone hears of the outcome, so that a handler may start the next job at once.
    emit busyChanged(false);

    bool wasCancelled = false;
    try {
        if (outcome->error) std::rethrow_exception(outcome->error);
    } catch (const glint::Cancelled&) {
        wasCancelled = true;
    } catch (...) {
        fail(describeException(outcome->error));
        return;
    }
    if (wasCancelled || control->cancelRequested()) {
        emit cancelled(name);
        if (onCancelled) onCancelled();
        return;
    }
    try {
        if (done) done(*control);
    } catch (...) {
        fail(describeException(std::current_exception()));
        return;
    }
    emit progressChanged(1.0);
    emit finished(name, elapsed);
    if (onFinished) onFinished();
}

} // namespace glint::ui
