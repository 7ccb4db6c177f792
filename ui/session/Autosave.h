// Autosave: the session is written every minute when it changed, and soon after each new result, to a
// file of this run in the autosave folder, next to a "running" marker; a normal exit removes both. A run
// that ended otherwise (a crash, a kill, power loss) leaves them behind, and the next start offers its
// session back (Restore / Discard), so that nothing the user made is lost.
#pragma once

#include <QJsonObject>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

namespace glint::ui {

class SessionManager;

struct AutosaveOptions {
    enum class Answer { Ask, Restore, Discard, Leave }; // Leave: say nothing, keep the files for later
    QString directory;                                  // created when missing
    int intervalMs = 60000;
    Answer answer = Answer::Ask;

    // The folder and answer from the environment (GLINT_AUTOSAVE_DIR, GLINT_AUTOSAVE_ANSWER =
    // restore|discard|ask), for tests and scripts; `fallback` when the folder variable is not set.
    static AutosaveOptions fromEnvironment(const QString& fallbackDirectory, Answer fallbackAnswer);
};

class Autosave : public QObject {
    Q_OBJECT
public:
    // Starts the marker (and the timer) at once. `dialogParent` parents the question box.
    Autosave(SessionManager& sessions, AutosaveOptions options, QWidget* dialogParent, QObject* parent = nullptr);
    ~Autosave() override; // leaves the files: only finish() means a normal exit

    QString directory() const { return options_.directory; }
    QString sessionPath() const; // this run's autosave
    QString markerPath() const;  // this run's "running" marker
    bool isActive() const { return active_; }

    // Writes the session when it differs from the last one written (nothing without an image).
    bool saveNow();
    // Writes soon (after the events in flight): when a result has just been shown.
    void saveSoon();
    // A normal exit: this run's autosave and marker go.
    void finish();

    // Looks for the newest autosave of a run that did not exit normally and offers it: a question that
    // does not block (Restore, Discard, Later), or the options' answer. Returns its path, or an empty
    // string when there was none.
    QString offerCrashedSession();

signals:
    void saved(const QString& path);
    void crashedSessionFound(const QString& path);
    void restoreAnswered(bool restore);

private:
    void answer(AutosaveOptions::Answer answer, const QString& id);
    static QString pathFor(const QString& directory, const QString& id, const char* suffix);
    void removeRun(const QString& id) const;

    SessionManager& sessions_;
    AutosaveOptions options_;
    QWidget* dialogParent_;
    QString id_;
    std::unique_ptr<QLockFile> lock_;
    QTimer timer_;
    QByteArray lastWritten_;
    bool active_ = false;
    bool savePending_ = false;
};

} // namespace glint::ui
