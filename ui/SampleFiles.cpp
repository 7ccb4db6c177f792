#include "ui/SampleFiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace glint::ui {

namespace {
QStringList candidateDirectories() {
    const QString exe = QCoreApplication::applicationDirPath();
    QStringList dirs;
    if (qEnvironmentVariableIsSet("GLINT_SAMPLES_DIR")) dirs << qEnvironmentVariable("GLINT_SAMPLES_DIR");
    dirs << exe + QStringLiteral("/samples")                   // a folder beside the program
         << exe + QStringLiteral("/../share/glint/samples")    // installed: bin/../share/glint/samples
         << exe + QStringLiteral("/../resources/samples");     // a relocated tree
#ifdef GLINT_SOURCE_SAMPLES_DIR
    dirs << QStringLiteral(GLINT_SOURCE_SAMPLES_DIR);          // the source tree of this build
#endif
    return dirs;
}
} // namespace

QString samplesDirectory() {
    for (const QString& dir : candidateDirectories())
        if (QFileInfo::exists(dir + QStringLiteral("/synthetic-mammogram.png"))) return QDir(dir).absolutePath();
    return {};
}

QStringList bundledSamples() {
    const QString dir = samplesDirectory();
    if (dir.isEmpty()) return {};
    QStringList out;
    const QFileInfoList files = QDir(dir).entryInfoList(QDir::Files, QDir::Name);
    for (const QFileInfo& f : files)
        if (!f.fileName().endsWith(QLatin1String(".txt")) && !f.fileName().endsWith(QLatin1String(".md")))
            out << f.absoluteFilePath();
    return out;
}

QString defaultSample() {
    const QString dir = samplesDirectory();
    return dir.isEmpty() ? QString() : dir + QStringLiteral("/synthetic-mammogram.png");
}

} // namespace glint::ui
