// The DICOM CAD writer plugin's interface (dicom/export/DicomCadPlugin.cpp, built as glint_dicom_cad.so): DCMTK and
// the ~25 libraries it brings (TLS, XML, ICU, ...) are linked there only, and DicomCadExport.cpp opens it with dlopen
// the first time a program writes a CAD SR or a presentation state (core/io/Plugin.h), so that the other runs do not
// pay for loading them (~18 ms a process). The plugin builds the file's bytes; the program writes them
// (writeFileAtomically: its output transaction and signal clean-up are the program's).
#pragma once

#include "dicom/export/DicomCadExport.h"

#include <string>
#include <vector>

namespace glint {

// Which of the programs' error types the failure is (core/util/Errors.h).
enum class DicomCadFailure { None, Usage, Input, Output, OutOfMemory };

struct DicomCadBytes {
    std::string bytes; // the whole file: preamble, meta header, dataset (explicit VR little endian)
    DicomCadFailure failure = DicomCadFailure::None;
    std::string message; // what went wrong, naming the source or the target, when failure is not None
};

class DicomCadWriter {
public:
    virtual ~DicomCadWriter() = default;
    // target names the file in messages only. Neither throws.
    virtual DicomCadBytes mammographyCadSr(const std::string& target, const CadExportInfo& info,
                                           const std::vector<CadMark>& marks) const = 0;
    virtual DicomCadBytes presentationState(const std::string& target, const CadExportInfo& info,
                                            const std::vector<CadMark>& marks) const = 0;
};

// The plugin's one entry point (C linkage; the number is the version of this interface and of DicomCadExport.h's
// structures: change it with any change to them). Returns the plugin's one instance, which lives as long as the
// process.
#define GLINT_DICOM_CAD_FACTORY glint_dicom_cad_factory_v1
#define GLINT_DICOM_CAD_FACTORY_NAME "glint_dicom_cad_factory_v1"
using DicomCadFactory = const DicomCadWriter* (*)();

} // namespace glint
