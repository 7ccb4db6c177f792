#include "ui/session/Autosave.h"

#include "ui/session/Session.h"
#include "core/util/AtomicFile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMessageBox>
#include <QPushButton>
#include <QSysInfo>

#include <exception>

namespace glint::ui {

namespace {
const char* const kSession = ".json";
const char* const kMarker = ".running";
const char* const kLock = ".lock";
} // namespace

AutosaveOptions AutosaveOptions::fromEnvironment(const QString& fallbackDirectory, Answer fallbackAnswer) {
    AutosaveOptions options;
    options.directory = qEnvironmentVariable("GLINT_AUTOSAVE_DIR", fallbackDirectory);
    const QString answer = qEnvironmentVariable("GLINT_AUTOSAVE_ANSWER").toLower();
    options.answer = answer == QLatin1String("restore")   ? Answer::Restore
                     : answer == QLatin1String("discard") ? Answer::Discard
                     : answer == QLatin1String("ask")     ? Answer::Ask
                                                          : fallbackAnswer;
    return options;
}

Autosave::Autosave(SessionManager& sessions, AutosaveOptions options, QWidget* dialogParent, QObject* parent)
    : QObject(parent), sessions_(sessions), options_(std::move(options)), dialogParent_(dialogParent),
      id_(QStringLiteral("%1-%2").arg(QCoreApplication::applicationPid()).arg(QDateTime::currentMSecsSinceEpoch())) {
    if (options_.directory.isEmpty() || !QDir().mkpath(options_.directory)) return;
    // The lock is held while this run lives: a run whose marker is there but whose lock can be taken
    // (the file is gone, or names a process that is no more) did not exit normally.
    lock_ = std::make_unique<QLockFile>(pathFor(options_.directory, id_, kLock));
    lock_->setStaleLockTime(0);
    if (!lock_->tryLock(0)) return;
    const QJsonObject marker{{QStringLiteral("pid"), QCoreApplication::applicationPid()},
                             {QStringLiteral("host"), QSysInfo::machineHostName()},
                             {QStringLiteral("started"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
    try {
        glint::writeFileAtomically(markerPath().toStdString(), QJsonDocument(marker).toJson().toStdString());
    } catch (const std::exception&) {
        return; // a folder we cannot write: no autosave (the window works without one)
    }
    active_ = true;
    timer_.setInterval(options_.intervalMs);
    connect(&timer_, &QTimer::timeout, this, &Autosave::saveNow);
    timer_.start();
}

Autosave::~Autosave() = default;

QString Autosave::pathFor(const QString& directory, const QString& id, const char* suffix) {
    return QDir(directory).filePath(QStringLiteral("session-") + id + QLatin1String(suffix));
}

QString Autosave::sessionPath() const {
    return pathFor(options_.directory, id_, kSession);
}
QString Autosave::markerPath() const {
    return pathFor(options_.directory, id_, kMarker);
}

bool Autosave::saveNow() {
    savePending_ = false;
    if (!active_ || sessions_.isOpening()) return false;
    // An image made in memory (no file to open again) cannot be restored: nothing worth keeping.
    if (!QFileInfo(sessions_.imagePath()).isFile()) return false;
    const QJsonObject doc = sessions_.capture();
    if (doc.isEmpty()) return false;
    const QByteArray bytes = QJsonDocument(doc).toJson(QJsonDocument::Compact);
    if (bytes == lastWritten_) return false;
    try {
        glint::writeFileAtomically(sessionPath().toStdString(), bytes.toStdString());
    } catch (const std::exception&) {
        return false; // a full disk: the next change tries again, the previous autosave stays intact
    }
    lastWritten_ = bytes;
    emit saved(sessionPath());
    return true;
}

void Autosave::saveSoon() {
    if (!active_ || savePending_) return;
    savePending_ = true;
    QTimer::singleShot(0, this, &Autosave::saveNow);
}

void Autosave::finish() {
    if (!active_) return;
    active_ = false;
    timer_.stop();
    QFile::remove(sessionPath());
    QFile::remove(markerPath());
    lock_->unlock();
}

void Autosave::removeRun(const QString& id) const {
    QFile::remove(pathFor(options_.directory, id, kSession));
    QFile::remove(pathFor(options_.directory, id, kMarker));
    QFile::remove(pathFor(options_.directory, id, kLock));
}

void Autosave::answer(AutosaveOptions::Answer answer, const QString& id) {
    const QString path = pathFor(options_.directory, id, kSession);
    switch (answer) {
    case AutosaveOptions::Answer::Restore: {
        QFile file(path);
        const QJsonDocument doc =
            file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()) : QJsonDocument();
        emit restoreAnswered(true);
        // The crashed run's files go once its session is back; if it cannot be restored (an image was
        // moved), they stay and are offered again next time.
        auto* onOpened = new QMetaObject::Connection;
        auto* onFailed = new QMetaObject::Connection;
        const auto done = [onOpened, onFailed] {
            QObject::disconnect(*onOpened);
            QObject::disconnect(*onFailed);
            delete onOpened;
            delete onFailed;
        };
        *onOpened = connect(&sessions_, &SessionManager::opened, this, [this, path, id, done](const QString& label) {
            if (label != path) return;
            removeRun(id);
            done();
        });
        *onFailed =
            connect(&sessions_, &SessionManager::failed, this, [path, done](const QString& label, const QString&) {
                if (label == path) done();
            });
        sessions_.open(doc.object(), QString(), path);
        break;
    }
    case AutosaveOptions::Answer::Discard:
        removeRun(id);
        emit restoreAnswered(false);
        break;
    default:
        break;
    }
}

QString Autosave::offerCrashedSession() {
    if (options_.directory.isEmpty()) return {};
    QString newestId;
    QDateTime newest;
    const QFileInfoList markers =
        QDir(options_.directory).entryInfoList({QStringLiteral("session-*.running")}, QDir::Files);
    for (const QFileInfo& marker : markers) {
        const QString id = marker.completeBaseName().mid(QStringLiteral("session-").size());
        if (id == id_) continue;
        QLockFile other(pathFor(options_.directory, id, kLock));
        other.setStaleLockTime(0);
        if (!other.tryLock(0)) continue; // that run is still going
        other.unlock();
        const QFileInfo session(pathFor(options_.directory, id, kSession));
        if (!session.exists()) { // it ended before its first autosave: nothing to offer
            removeRun(id);
            continue;
        }
        if (newestId.isEmpty() || session.lastModified() > newest) {
            newestId = id;
            newest = session.lastModified();
        }
    }
    if (newestId.isEmpty()) return {};
    const QString path = pathFor(options_.directory, newestId, kSession);
    emit crashedSessionFound(path);

    if (options_.answer != AutosaveOptions::Answer::Ask) {
        answer(options_.answer, newestId);
        return path;
    }
    // Asked without blocking: the window starts and stays responsive while the question is open.
    auto* box = new QMessageBox(QMessageBox::Question, tr("Restore the last session?"),
                                tr("Glint did not exit normally last time (%1). Its autosaved session can be restored: "
                                   "the image, display, parameters, results and overlays as they were.")
                                    .arg(QLocale().toString(newest, QLocale::ShortFormat)),
                                QMessageBox::NoButton, dialogParent_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* restore = box->addButton(tr("Restore"), QMessageBox::AcceptRole);
    QPushButton* discard = box->addButton(tr("Discard"), QMessageBox::DestructiveRole);
    box->addButton(tr("Later"), QMessageBox::RejectRole);
    box->setDefaultButton(restore);
    connect(box, &QMessageBox::buttonClicked, this, [this, restore, discard, newestId](QAbstractButton* button) {
        answer(button == restore   ? AutosaveOptions::Answer::Restore
               : button == discard ? AutosaveOptions::Answer::Discard
                                   : AutosaveOptions::Answer::Leave,
               newestId);
    });
    box->open();
    return path;
}

} // namespace glint::ui
