// CAD marks from regions, and the DICOM writers: the DCMTK plugin (DicomCadWriter.h) opened on first use, its bytes
// written here.
#include "dicom/export/DicomCadExport.h"

#include "core/export/ExportRegions.h"
#include "core/io/Plugin.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "core/util/Printable.h"
#include "dicom/export/DicomCadWriter.h"

#include <new>
#include <string>
#include <vector>

namespace glint {

namespace {

LoadedPlugin<DicomCadWriter> load() {
    return loadPlugin<DicomCadWriter>(
        {"DICOM CAD writer", "GLINT_DICOM_CAD_PLUGIN", GLINT_DICOM_CAD_FILE_NAME, GLINT_DICOM_CAD_FACTORY_NAME}, "writer");
}

const DicomCadWriter& writer(const std::string& target) {
    const LoadedPlugin<DicomCadWriter>& loaded = loadedOnce<&load>();
    if (!loaded.instance) throw OutputError("cannot write '" + printableMessage(target) + "': " + loaded.error);
    return *loaded.instance;
}

void write(const std::string& target, const DicomCadBytes& made) {
    switch (made.failure) {
    case DicomCadFailure::None: writeFileAtomically(target, made.bytes); return;
    case DicomCadFailure::Usage: throw UsageError(made.message);
    case DicomCadFailure::Input: throw InputError(made.message);
    case DicomCadFailure::OutOfMemory: throw std::bad_alloc();
    case DicomCadFailure::Output: break;
    }
    throw OutputError(made.message);
}

} // namespace

bool dicomExportAvailable() { return true; }

std::vector<CadMark> cadMarksFromRegions(const std::vector<ExportRegion>& regions) {
    std::vector<CadMark> marks;
    for (const ExportRegion& r : regions) {
        CadMark m;
        m.rank = r.rank;
        m.label = r.label;
        for (const RegionValue& v : r.values) // the first figure that is not the rank itself
            if (v.name != "rank") {
                m.significance = v.value;
                m.significanceName = v.name;
                break;
            }
        if (!r.outline.empty() && !r.outline.front().outer.empty()) {
            for (const GridCorner& c : r.outline.front().outer)
                m.outline.emplace_back(static_cast<double>(c.x), static_cast<double>(c.y));
            m.outline.push_back(m.outline.front());
        } else if (!r.points.empty()) {
            for (const auto& [x, y] : r.points) m.outline.emplace_back(x + 0.5, y + 0.5);
            if (r.ellipse) m.outline.push_back(m.outline.front());
        } else if (r.width == 1 && r.height == 1) {
            m.outline.emplace_back(r.x + 0.5, r.y + 0.5);
        } else {
            const double x0 = r.x, y0 = r.y, x1 = r.x + r.width, y1 = r.y + r.height;
            m.outline = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}};
        }
        marks.push_back(std::move(m));
    }
    return marks;
}

void writeMammographyCadSr(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks) {
    write(target, writer(target).mammographyCadSr(target, info, marks));
}

void writePresentationState(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks) {
    write(target, writer(target).presentationState(target, info, marks));
}

} // namespace glint
