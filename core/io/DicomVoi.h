// DICOM's grayscale pipeline after the modality transform (PS3.3 C.11.2, C.11.6, C.8.11.6): the VOI LUT
// Function of a window (LINEAR, LINEAR_EXACT, SIGMOID), a VOI LUT Sequence's tables, the Presentation LUT
// Shape and MONOCHROME1's inversion. DicomLoader reads it from the header (what it had to refuse goes to
// `notes`); core/display renders through it when the display limits are "window".
//
// The loader stores MONOCHROME1 images mirrored within their range (v = m − x, so that bright is high for
// every algorithm); the pipeline undoes that for the VOI, which sees the modality value x = m − v as the
// standard says, and inverts afterwards: P = 1 − VOI(x). A Presentation LUT Shape, when present, decides
// the polarity (IDENTITY: P = VOI(x); INVERSE: P = 1 − VOI(x)); without one, MONOCHROME1 is INVERSE and
// MONOCHROME2 IDENTITY (PS3.3 C.8.11.6.1.1 requires INVERSE with MONOCHROME1, so both agree there).
// MONOCHROME1 with signed pixels (Pixel Representation 1) is taken the same way: mirrored within the range
// of its values and inverted after the VOI; the header's window and LUT apply to the signed modality values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace glint {

enum class VoiFunction { Linear, LinearExact, Sigmoid };

struct VoiWindow {
    double center = 0.0;
    double width = 1.0;
    std::string explanation; // Window Center & Width Explanation, or the preset's name
};

// One item of the VOI LUT Sequence: LUT Descriptor (entries, first value mapped, bits) and LUT Data.
struct VoiLut {
    long long firstMapped = 0;
    int bits = 16;
    std::vector<std::uint16_t> data;
    std::string explanation;
};

struct DicomVoi {
    std::vector<VoiLut> luts;       // applied before any window when present (the first by default)
    std::vector<VoiWindow> windows; // Window Center/Width pairs in header order; CT presets after them
    int headerWindows = 0;          // how many of `windows` come from the header (the rest are presets)
    VoiFunction function = VoiFunction::Linear;
    bool inverse = false;           // P-values inverted (MONOCHROME1, or Presentation LUT Shape INVERSE)
    std::optional<double> mirror;   // MONOCHROME1: the loader stored v = m − x
    std::vector<std::string> notes; // inconsistent attributes that were left out, one sentence each
    std::string units;              // of the modality values: "HU" for CT (Rescale Type, else HU), else ""

    int choiceCount() const { return static_cast<int>(luts.size() + windows.size()); }
    // "LUT 1: explanation", "window 2: C 40 W 400 (explanation)", "lung (C −600 W 1500)".
    std::string choiceName(int choice) const;
    // The modality value x of a stored value v, and back.
    double modality(double v) const { return mirror ? *mirror - v : v; }
    // The range of stored values the choice maps between its least and greatest output.
    void storedRange(int choice, double& low, double& high) const;
    // The P-value in [0, 1] (0 black) of stored value v through choice `choice` (clamped to the choices).
    double pValue(int choice, double v) const;
};

// PS3.3 C.11.2.1.2.1 (LINEAR, width >= 1), C.11.2.1.3.2 (LINEAR_EXACT, width > 0), C.11.2.1.3.1 (SIGMOID,
// width > 0), with ymin 0 and ymax 1.
double voiLinear(double x, double center, double width);
double voiLinearExact(double x, double center, double width);
double voiSigmoid(double x, double center, double width);
// A VOI LUT's output for input x (rounded to the nearest integer; below the first value mapped: the first
// entry, above the last: the last), over 2^bits − 1.
double voiLutOutput(const VoiLut& lut, double x);

const char* voiFunctionName(VoiFunction function);

// The standard CT windows (level/width in HU): lung −600/1500, mediastinum 40/400, bone 400/1800,
// brain 40/80.
std::vector<VoiWindow> ctPresetWindows();

} // namespace glint
