// CAD marks as DICOM objects a reading workstation reads, written with DCMTK (Debian's libdcmtk-dev):
//  - a Mammography CAD SR (TID 4000: CAD Processing and Findings Summary; one Single Image Finding per
//    mark, its outline as an SCOORD POLYLINE, or a POINT for a one-pixel mark, SELECTED FROM the source
//    image; rank and significance as numeric properties);
//  - a Grayscale Softcopy Presentation State whose graphic layer "CAD MARKS" holds each mark's outline and
//    its rank as text, referencing the source image's study, series and SOP instance.
// The source must be a DICOM image (its UIDs are referenced): anything else is a UsageError ("needs a
// DICOM input image"). Zero marks give a valid SR whose summary says "without findings", and a GSPS with an
// empty layer. New instances get UIDs from dcmGenerateUniqueIdentifier. Bytes are written through
// writeFileAtomically (temporary beside the target, then renamed). DCMTK itself is in a plugin opened on the first
// write (DicomCadWriter.h); without it the writers throw OutputError saying where it was looked for.
// Built only where DCMTK is found (GLINT_HAVE_DCMTK); elsewhere the options say DCMTK is missing.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace glint {

struct ExportRegion;

struct CadMark {
    int rank = 1;
    // The outline in pixel coordinates (x = column, y = row, DICOM's: the top left corner of the image is
    // (0, 0), the centre of the first pixel (0.5, 0.5)); closed (the first point repeated last) when it is an area; one point for a point mark.
    std::vector<std::pair<double, double>> outline;
    double significance = 0.0; // the algorithm's own figure for the mark (named by significanceName)
    std::string significanceName = "significance";
    std::string label;         // "#1 sum=12345"
};

struct CadExportInfo {
    std::string sourcePath;       // the DICOM image the marks were found on
    int frame = 0;                // its frame (0-based): referenced for multi-frame images
    std::string algorithmName = "Glint";
    std::string algorithmVersion;
};

bool dicomExportAvailable(); // built with DCMTK

// The marks of exported regions (core/export/ExportRegions.h), in rank order: a box's four corners, a
// common component's outer outline, a source's ellipse or a trace's polyline (pixel centres + 0.5), a
// one-pixel box as its centre point; significance is the region's first value
// other than its rank.
std::vector<CadMark> cadMarksFromRegions(const std::vector<ExportRegion>& regions);

void writeMammographyCadSr(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks);
void writePresentationState(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks);

} // namespace glint
