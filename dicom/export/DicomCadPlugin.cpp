#include "dicom/export/DicomCadExport.h"

#include "core/export/ExportRegions.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcostrmb.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmpstat/dvpsgr.h>
#include <dcmtk/dcmpstat/dvpstat.h>
#include <dcmtk/dcmpstat/dvpstx.h>
#include <dcmtk/dcmsr/dsrdoc.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace glint {

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

namespace {

struct Source {
    DcmFileFormat file;
    std::string sopClass, sopInstance, study, series;
};

std::string text(DcmItem& item, const DcmTagKey& key) {
    OFString value;
    if (item.findAndGetOFString(key, value).bad()) return {};
    return value.c_str();
}

void readSource(const CadExportInfo& info, Source& out) {
    if (out.file.loadFile(info.sourcePath.c_str()).bad())
        throw UsageError("a DICOM CAD SR or presentation state needs a DICOM input image; '" + info.sourcePath +
                         "' is not one DCMTK reads");
    DcmDataset& ds = *out.file.getDataset();
    out.sopClass = text(ds, DCM_SOPClassUID);
    out.sopInstance = text(ds, DCM_SOPInstanceUID);
    out.study = text(ds, DCM_StudyInstanceUID);
    out.series = text(ds, DCM_SeriesInstanceUID);
    if (out.sopClass.empty() || out.sopInstance.empty() || out.study.empty() || out.series.empty())
        throw InputError("'" + info.sourcePath +
                         "' lacks a SOP Class, SOP Instance, Study or Series Instance UID: a CAD SR or presentation "
                         "state cannot reference it");
}

// The whole file (preamble, meta header, dataset; explicit VR little endian) as bytes.
std::string fileBytes(DcmFileFormat& file, const std::string& target) {
    std::string bytes;
    std::vector<char> chunk(1 << 16);
    DcmOutputBufferStream stream(chunk.data(), chunk.size());
    file.transferInit();
    OFCondition status = EC_StreamNotifyClient;
    while (status == EC_StreamNotifyClient) {
        status = file.write(stream, EXS_LittleEndianExplicit, EET_ExplicitLength, nullptr);
        void* buffer = nullptr;
        offile_off_t length = 0;
        stream.flushBuffer(buffer, length);
        bytes.append(static_cast<const char*>(buffer), static_cast<std::size_t>(length));
    }
    file.transferEnd();
    if (status.bad()) throw OutputError("cannot encode '" + target + "': " + status.text());
    stream.flush();
    void* buffer = nullptr;
    offile_off_t length = 0;
    stream.flushBuffer(buffer, length);
    bytes.append(static_cast<const char*>(buffer), static_cast<std::size_t>(length));
    return bytes;
}

std::string number(double v) {
    char t[32];
    std::snprintf(t, sizeof t, "%.6g", v);
    return t;
}

void check(const OFCondition& status, const std::string& target, const char* what) {
    if (status.bad()) throw OutputError("cannot build '" + target + "' (" + what + "): " + status.text());
}

} // namespace

void writeMammographyCadSr(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks) {
    Source source;
    readSource(info, source);
    DcmDataset& ds = *source.file.getDataset();
    DSRDocument doc(DSRTypes::DT_MammographyCadSR);
    check(doc.createNewSeriesInStudy(source.study.c_str()), target, "series");
    doc.setPatientName(text(ds, DCM_PatientName).c_str());
    doc.setPatientID(text(ds, DCM_PatientID).c_str());
    doc.setPatientBirthDate(text(ds, DCM_PatientBirthDate).c_str());
    doc.setPatientSex(text(ds, DCM_PatientSex).c_str());
    doc.setStudyID(text(ds, DCM_StudyID).c_str());
    doc.setAccessionNumber(text(ds, DCM_AccessionNumber).c_str());
    doc.setReferringPhysicianName(text(ds, DCM_ReferringPhysicianName).c_str());
    doc.setStudyDate(text(ds, DCM_StudyDate).c_str());
    doc.setStudyTime(text(ds, DCM_StudyTime).c_str());
    doc.setManufacturer("Glint");
    doc.setSeriesDescription("Glint CAD marks");
    check(doc.getCurrentRequestedProcedureEvidence().addItem(source.study.c_str(), source.series.c_str(),
                                                             source.sopClass.c_str(), source.sopInstance.c_str()),
          target, "evidence");

    DSRImageReferenceValue image(source.sopClass.c_str(), source.sopInstance.c_str());
    if (!text(ds, DCM_NumberOfFrames).empty()) image.getFrameList().addItem(static_cast<Sint32>(info.frame + 1));

    DSRDocumentTree& tree = doc.getTree();
    tree.addContentItem(DSRTypes::RT_isRoot, DSRTypes::VT_Container);
    tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("111036", "DCM", "Mammography CAD Report"));
    check(tree.getCurrentContentItem().setTemplateIdentification("4000", "DCMR"), target, "template");
    // TID 4020: the image the marks are on.
    tree.addContentItem(DSRTypes::RT_contains, DSRTypes::VT_Container, DSRTypes::AM_belowCurrent);
    tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("111028", "DCM", "Image Library"));
    tree.addContentItem(DSRTypes::RT_contains, DSRTypes::VT_Image, DSRTypes::AM_belowCurrent);
    check(tree.getCurrentContentItem().setImageReference(image), target, "image library");
    tree.goUp();
    // TID 4001: the summary, with or without findings.
    tree.addContentItem(DSRTypes::RT_contains, DSRTypes::VT_Code, DSRTypes::AM_afterCurrent);
    tree.getCurrentContentItem().setConceptName(
        DSRCodedEntryValue("111017", "DCM", "CAD Processing and Findings Summary"));
    tree.getCurrentContentItem().setCodeValue(
        marks.empty() ? DSRCodedEntryValue("111241", "DCM", "All algorithms succeeded; without findings")
                      : DSRCodedEntryValue("111242", "DCM", "All algorithms succeeded; with findings"));
    const size_t summary = tree.getNodeID();
    for (const CadMark& mark : marks) {
        if (mark.outline.empty()) continue;
        tree.gotoNode(summary);
        // TID 4003 / 4006: one individual impression holding one single image finding.
        tree.addContentItem(DSRTypes::RT_inferredFrom, DSRTypes::VT_Container, DSRTypes::AM_belowCurrent);
        tree.getCurrentContentItem().setConceptName(
            DSRCodedEntryValue("111034", "DCM", "Individual Impression/Recommendation"));
        tree.addContentItem(DSRTypes::RT_contains, DSRTypes::VT_Code, DSRTypes::AM_belowCurrent);
        tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("111059", "DCM", "Single Image Finding"));
        tree.getCurrentContentItem().setCodeValue(DSRCodedEntryValue("111099", "DCM", "Selected region"));
        const size_t finding = tree.getNodeID();
        tree.addContentItem(DSRTypes::RT_hasConceptMod, DSRTypes::VT_Text, DSRTypes::AM_belowCurrent);
        tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("111001", "DCM", "Algorithm Name"));
        tree.getCurrentContentItem().setStringValue(info.algorithmName.c_str());
        tree.addContentItem(DSRTypes::RT_hasConceptMod, DSRTypes::VT_Text, DSRTypes::AM_afterCurrent);
        tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("111003", "DCM", "Algorithm Version"));
        tree.getCurrentContentItem().setStringValue(info.algorithmVersion.empty() ? "unknown" : info.algorithmVersion.c_str());
        tree.addContentItem(DSRTypes::RT_hasProperties, DSRTypes::VT_Code, DSRTypes::AM_afterCurrent);
        tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("111056", "DCM", "Rendering Intent"));
        tree.getCurrentContentItem().setCodeValue(
            DSRCodedEntryValue("111150", "DCM", "Presentation Required: Rendering device is expected to present"));
        // Rank and the algorithm's own significance: local codes (coding scheme 99GLINT).
        tree.addContentItem(DSRTypes::RT_hasProperties, DSRTypes::VT_Num, DSRTypes::AM_afterCurrent);
        tree.getCurrentContentItem().setConceptName(DSRCodedEntryValue("RANK", "99GLINT", "Rank"));
        tree.getCurrentContentItem().setNumericValue(
            DSRNumericMeasurementValue(std::to_string(mark.rank).c_str(), DSRCodedEntryValue("1", "UCUM", "no units")));
        tree.addContentItem(DSRTypes::RT_hasProperties, DSRTypes::VT_Num, DSRTypes::AM_afterCurrent);
        tree.getCurrentContentItem().setConceptName(
            DSRCodedEntryValue("SIGNIFICANCE", "99GLINT", mark.significanceName.substr(0, 64).c_str()));
        tree.getCurrentContentItem().setNumericValue(
            DSRNumericMeasurementValue(number(mark.significance).c_str(), DSRCodedEntryValue("1", "UCUM", "no units")));
        // The outline (or centre), selected from the image.
        const bool point = mark.outline.size() == 1;
        DSRSpatialCoordinatesValue scoord(point ? DSRTypes::GT_Point : DSRTypes::GT_Polyline);
        for (const auto& [x, y] : mark.outline)
            scoord.getGraphicDataList().addItem(static_cast<Float32>(x), static_cast<Float32>(y));
        tree.gotoNode(finding);
        tree.addContentItem(DSRTypes::RT_inferredFrom, DSRTypes::VT_SCoord, DSRTypes::AM_belowCurrent);
        tree.getCurrentContentItem().setConceptName(
            point ? DSRCodedEntryValue("111010", "DCM", "Center") : DSRCodedEntryValue("111041", "DCM", "Outline"));
        check(tree.getCurrentContentItem().setSpatialCoordinates(scoord), target, "outline");
        tree.addContentItem(DSRTypes::RT_selectedFrom, DSRTypes::VT_Image, DSRTypes::AM_belowCurrent);
        check(tree.getCurrentContentItem().setImageReference(image), target, "outline's image");
    }
    DcmFileFormat out;
    check(doc.write(*out.getDataset()), target, "document");
    writeFileAtomically(target, fileBytes(out, target));
}

void writePresentationState(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks) {
    Source source;
    readSource(info, source);
    DVPresentationState ps;
    check(ps.createFromImage(*source.file.getDataset()), target, "from the image");
    // Graphic and text objects are made for the attached image (ps is destroyed before source).
    check(ps.attachImage(source.file.getDataset(), OFFalse), target, "image");
    ps.setPresentationLabel("GLINT_CAD");
    ps.setPresentationDescription("Glint CAD marks");
    check(ps.addGraphicLayer("CAD MARKS", "Glint CAD marks, ranked"), target, "graphic layer");
    const size_t layer = ps.getGraphicLayerIndex("CAD MARKS");
    for (const CadMark& mark : marks) {
        if (mark.outline.empty()) continue;
        DVPSGraphicObject* graphic = ps.addGraphicObject(layer);
        if (!graphic) throw OutputError("cannot build '" + target + "': no graphic object");
        std::vector<Float32> data;
        for (const auto& [x, y] : mark.outline) {
            data.push_back(static_cast<Float32>(x));
            data.push_back(static_cast<Float32>(y));
        }
        check(graphic->setData(mark.outline.size(), data.data(), DVPSA_pixels), target, "graphic data");
        check(graphic->setGraphicType(mark.outline.size() == 1 ? DVPST_point : DVPST_polyline), target, "graphic type");
        check(graphic->setFilled(OFFalse), target, "graphic fill");
        DVPSTextObject* label = ps.addTextObject(layer);
        if (!label) throw OutputError("cannot build '" + target + "': no text object");
        double x = mark.outline.front().first, y = mark.outline.front().second;
        for (const auto& p : mark.outline) { // the top left corner of the outline
            x = std::min(x, p.first);
            y = std::min(y, p.second);
        }
        check(label->setAnchorPoint(x, y, DVPSA_pixels, OFTrue), target, "text anchor");
        std::string rank = std::to_string(mark.rank);
        rank.insert(rank.begin(), '#'); // (GCC 12 warns, wrongly, of "#" + string: -Wrestrict)
        check(label->setText(rank.c_str()), target, "text");
    }
    DcmFileFormat out;
    check(ps.write(*out.getDataset(), OFTrue), target, "presentation state");
    // General Series' Laterality (Type 2C), which DCMTK leaves out: the image's, empty when it has none.
    check(out.getDataset()->putAndInsertString(DCM_Laterality, text(*source.file.getDataset(), DCM_Laterality).c_str()),
          target, "laterality");
    writeFileAtomically(target, fileBytes(out, target));
}

} // namespace glint
