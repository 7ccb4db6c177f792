// The DICOM CAD writer plugin (dicom/export/DicomCadWriter.h): a Mammography CAD SR and a Grayscale Softcopy
// Presentation State built with DCMTK, returned as bytes.
#include "dicom/export/DicomCadWriter.h"

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
#include <new>
#include <vector>

namespace glint {

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

std::string mammographyCadSrBytes(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks) {
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
    return fileBytes(out, target);
}

std::string presentationStateBytes(const std::string& target, const CadExportInfo& info, const std::vector<CadMark>& marks) {
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
    return fileBytes(out, target);
}

// The builders' exceptions as the interface's failures (the program throws its own types for them).
template <typename Build>
DicomCadBytes caught(Build build) {
    DicomCadBytes out;
    try {
        out.bytes = build();
    } catch (const UsageError& e) {
        out = {{}, DicomCadFailure::Usage, e.what()};
    } catch (const InputError& e) {
        out = {{}, DicomCadFailure::Input, e.what()};
    } catch (const std::bad_alloc&) {
        out = {{}, DicomCadFailure::OutOfMemory, "out of memory"};
    } catch (const std::exception& e) {
        out = {{}, DicomCadFailure::Output, e.what()};
    }
    return out;
}

class Writer final : public DicomCadWriter {
public:
    DicomCadBytes mammographyCadSr(const std::string& target, const CadExportInfo& info,
                                   const std::vector<CadMark>& marks) const override {
        return caught([&] { return mammographyCadSrBytes(target, info, marks); });
    }
    DicomCadBytes presentationState(const std::string& target, const CadExportInfo& info,
                                    const std::vector<CadMark>& marks) const override {
        return caught([&] { return presentationStateBytes(target, info, marks); });
    }
};

} // namespace

} // namespace glint

extern "C" __attribute__((visibility("default"))) const glint::DicomCadWriter* GLINT_DICOM_CAD_FACTORY() {
    static const glint::Writer writer;
    return &writer;
}
