// File ▸ Save Session / Open Session: the window's state as one JSON document — the image (path, HDU,
// plane, frame), display settings, view zoom and centre, each module's parameters, results and overlays
// (a common component's image B included), the layers' visibility, colours and order, and the timing
// log — and back. Opening loads every image off the UI thread first and applies nothing until all of
// them and every module's state have been read: a missing file leaves the window as it was.
#pragma once

#include "ui/jobs/LatestOnly.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

namespace glint::ui {

class MainWindow;

class SessionManager : public QObject {
    Q_OBJECT
public:
    static constexpr int kVersion = 2; // 2: results in the descriptors' JSON form (1 still opens)

    explicit SessionManager(MainWindow& window, QObject* parent = nullptr);

    bool hasContent() const; // an image is open: something to save
    QString imagePath() const;
    // The session as a document (without the time it was saved, so that equal states give equal bytes).
    QJsonObject capture() const;
    // Writes the session atomically. Throws glint::UsageError (no image, or one not opened from a file)
    // or glint::OutputError.
    void save(const QString& path) const;

    // Reads a session file and applies it: opened() or failed(); a newer open supersedes one in progress.
    void open(const QString& path);
    // The same from a document already read (the autosave's); image files not found where the document
    // says are looked for in `directory` (the session file's folder), by name.
    void open(const QJsonObject& document, const QString& directory, const QString& label);
    bool isOpening() const { return loading_.busy(); }

signals:
    void opened(const QString& label);
    void failed(const QString& label, const QString& message);

private:
    void fail(const QString& label, const QString& message);

    MainWindow& window_;
    LatestOnly loading_;
};

} // namespace glint::ui
